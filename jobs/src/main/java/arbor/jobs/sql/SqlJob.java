package arbor.jobs.sql;

import arbor.jobs.cli.Args;
import arbor.jobs.cli.Job;
import arbor.jobs.cli.JobContext;
import arbor.jobs.cli.UsageError;
import arbor.pipelines.warehouse.Table;
import java.util.List;
import java.util.Set;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;

/**
 * {@code arbor sql "<query>" [--json]}: Spark SQL over the warehouse, every table registered
 * under its name. Prints a table, or one JSON object per row with {@code --json}.
 */
public final class SqlJob implements Job {

  @Override
  public String summary() {
    return "run Spark SQL over the warehouse tables and print the result";
  }

  @Override
  public String usage() {
    return """
        usage: arbor sql "<query>" [--json] [--limit N]
          --json      one JSON object per row (for scripts)
          --limit N   print at most N rows (default 100; --json prints all)
        tables: """ + java.util.Arrays.stream(Table.values()).map(t -> t.tableName).toList();
  }

  @Override
  public int run(JobContext context) throws Exception {
    Args args = Args.parse("sql", context.args(), Set.of("json"), Set.of("limit"));
    if (args.positionals().size() != 1) {
      throw new UsageError("sql: give exactly one query, quoted: bin/arbor sql \"SELECT count(*) FROM papers\"");
    }
    int limit = Integer.parseInt(args.value("limit").orElse("100"));
    List<Table> tables = context.warehouse().registerViews();
    Dataset<Row> result;
    try {
      result = context.spark().sql(args.positionals().get(0));
    } catch (Exception e) {
      // Scala does not declare AnalysisException (parse errors included), so Java cannot catch it by type.
      if (!(e instanceof AnalysisException)) throw e;
      throw new UsageError("sql: " + e.getMessage().lines().findFirst().orElse("") + "\n  tables under "
          + context.config().warehouse() + ": " + tables.stream().map(t -> t.tableName).toList());
    }
    if (args.flag("json")) {
      result.toJSON().toLocalIterator().forEachRemaining(context.out()::println);
    } else {
      context.out().print(TextTable.render(result, limit));
    }
    return 0;
  }
}
