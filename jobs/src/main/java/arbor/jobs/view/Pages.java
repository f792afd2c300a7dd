package arbor.jobs.view;

import arbor.notebook.Html;

/** The frame every viewer page shares: its title, the stylesheet and script, a line of links. */
final class Pages {
  private Pages() {}

  /**
   * @param root the way back to the viewer's root from this page ("" or "../")
   * @param nav links already in HTML
   */
  static String page(String title, String root, String nav, String body) {
    return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>" + Html.escape(title) + "</title>"
        + "<link rel=\"stylesheet\" href=\"" + root + "assets/view.css\"></head><body>"
        + "<nav><a href=\"" + root + "index.html\">Arbor rollouts</a>" + nav + "</nav>"
        + "<h1>" + Html.escape(title) + "</h1>\n" + body
        + "\n<script src=\"" + root + "assets/view.js\"></script></body></html>\n";
  }

  static String link(String href, String text) {
    return "<a href=\"" + Html.escape(href) + "\">" + Html.escape(text) + "</a>";
  }

  static final String CSS = """
      body{font:14px/1.4 system-ui,sans-serif;margin:0 24px 40px;color:#222}
      nav{padding:8px 0;border-bottom:1px solid #ddd;margin-bottom:8px}nav a{margin-right:14px}
      h1{font-size:20px}h2{font-size:17px;margin-top:28px}h4{margin:4px 0}
      table{border-collapse:collapse;margin:8px 0}td,th{border-bottom:1px solid #e4e4e4;padding:3px 8px;text-align:left;vertical-align:top}
      th{background:#f4f4f4;position:sticky;top:0}td.n,th.n{text-align:right}
      .muted{color:#777}.err{color:#a00}.badge{border-radius:3px;padding:0 4px;background:#eee;font-size:12px}
      .st-final>summary .badge,.badge.st-final{background:#d8f0d0}.badge.st-max_turns,.st-max_turns>summary .badge,
      .badge.st-budget,.st-budget>summary .badge{background:#f6e7c1}
      .badge.st-sandbox_error,.badge.st-policy_error,.badge.st-sandbox_lost,.st-sandbox_error>summary .badge,
      .st-policy_error>summary .badge{background:#f4c7c3}
      .flat{background:#fff3cd;border-radius:3px;padding:0 4px;font-size:12px}
      .filters{background:#f7f7f9;padding:8px;border:1px solid #e4e4e4;display:flex;gap:16px;flex-wrap:wrap;align-items:center}
      .facts{display:flex;flex-wrap:wrap;gap:6px 16px;margin:6px 0}.fact{white-space:nowrap}
      section.tree{border:1px solid #ccc;border-radius:6px;padding:8px 12px;margin:16px 0}
      .evidence{display:grid;grid-template-columns:1fr 1fr;gap:12px;margin:8px 0}
      .span{border-left:4px solid #ccc;padding:2px 6px;margin:4px 0}.span.hit{border-color:#4a4}.span.miss{border-color:#c66}
      .span .mark{font-size:12px;font-weight:600}.hit .mark{color:#272}.miss .mark{color:#a33}
      .diagram{overflow-x:auto;margin:8px 0}
      details.node{margin:6px 0 6px 12px;border-left:2px solid #ccc;padding-left:8px}
      .turn{margin:6px 0;padding:4px 0;border-top:1px dashed #ddd}.turnhead{font-size:12px;color:#555}
      pre{white-space:pre-wrap;word-break:break-word;margin:2px 0;font:12px/1.35 ui-monospace,monospace}
      pre.code{background:#f5f5fa;padding:6px;border-radius:4px}pre.obs{background:#eef7ee;padding:6px}pre.obs.error{background:#fbe3e3}
      .s{color:#a31515}.c{color:#777;font-style:italic}.nu{color:#098658}.k{color:#0000c8;font-weight:600}.t{color:#795e26;font-weight:600}
      .columns{display:flex;gap:12px;overflow-x:auto;align-items:flex-start}.columns>div{flex:0 0 420px;border:1px solid #ccc;padding:6px}
      """;

  /** Filters on a step's tree table, and opening the details a link points into. */
  static final String JS = """
      (function () {
        function openTarget() {
          var id = decodeURIComponent(location.hash.slice(1));
          var el = id && document.getElementById(id);
          for (var p = el; p; p = p.parentElement) if (p.tagName === 'DETAILS') p.open = true;
          if (el) el.scrollIntoView();
        }
        window.addEventListener('hashchange', openTarget);
        openTarget();
        var table = document.getElementById('trees');
        if (!table) return;
        var status = document.getElementById('f-status'), tier = document.getElementById('f-tier');
        var lo = document.getElementById('f-min'), hi = document.getElementById('f-max');
        var shown = document.getElementById('f-shown');
        function apply() {
          var min = lo.value === '' ? -Infinity : parseFloat(lo.value), max = hi.value === '' ? Infinity : parseFloat(hi.value);
          var rows = table.tBodies[0].rows, n = 0;
          for (var i = 0; i < rows.length; i++) {
            var r = rows[i], reward = r.dataset.reward === '' ? NaN : parseFloat(r.dataset.reward);
            var ok = (!status.value || r.dataset.status === status.value) && (!tier.value || r.dataset.tier === tier.value)
              && (lo.value === '' && hi.value === '' || (reward >= min && reward <= max));
            r.hidden = !ok;
            if (ok) n++;
          }
          shown.textContent = n + ' of ' + rows.length + ' trees shown';
        }
        [status, tier, lo, hi].forEach(function (e) { e.addEventListener('input', apply); });
        apply();
      })();
      """;
}
