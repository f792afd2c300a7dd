package arbor.text;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** A half-open character interval {@code [start, end)} of a paper's text. */
public record Interval(int start, int end) {
  public Interval {
    if (start < 0 || end < start) throw new IllegalArgumentException("not an interval: [" + start + ", " + end + ")");
  }

  public int length() {
    return end - start;
  }

  /** The union of {@code intervals} as sorted, disjoint, non-touching intervals. */
  public static List<Interval> merge(List<Interval> intervals) {
    List<Interval> sorted = new ArrayList<>(intervals);
    sorted.removeIf(i -> i.length() == 0);
    sorted.sort(Comparator.comparingInt(Interval::start));
    List<Interval> out = new ArrayList<>();
    for (Interval i : sorted) {
      if (!out.isEmpty() && i.start() <= out.getLast().end()) {
        Interval last = out.removeLast();
        out.add(new Interval(last.start(), Math.max(last.end(), i.end())));
      } else {
        out.add(i);
      }
    }
    return out;
  }

  /** Characters in the union of {@code intervals}. */
  public static long covered(List<Interval> intervals) {
    long n = 0;
    for (Interval i : merge(intervals)) n += i.length();
    return n;
  }

  /** Characters two interval sets share. */
  public static long overlap(List<Interval> a, List<Interval> b) {
    List<Interval> x = merge(a);
    List<Interval> y = merge(b);
    long n = 0;
    int i = 0;
    int j = 0;
    while (i < x.size() && j < y.size()) {
      int lo = Math.max(x.get(i).start(), y.get(j).start());
      int hi = Math.min(x.get(i).end(), y.get(j).end());
      if (hi > lo) n += hi - lo;
      if (x.get(i).end() < y.get(j).end()) i++;
      else j++;
    }
    return n;
  }
}
