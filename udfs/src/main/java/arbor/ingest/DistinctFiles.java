package arbor.ingest;

import java.util.Collections;
import java.util.HashSet;
import java.util.Set;
import org.apache.spark.util.AccumulatorV2;

/**
 * The paths of the files a stage has finished, counted once each. A plain counter counts a file
 * again whenever Spark runs its task again (a retry, a lost executor's cached partition rebuilt,
 * a second action over an uncached plan), and the console then said "28/24 files".
 */
public final class DistinctFiles extends AccumulatorV2<String, Set<String>> {
  private final Set<String> paths = Collections.synchronizedSet(new HashSet<>());

  @Override
  public boolean isZero() {
    return paths.isEmpty();
  }

  @Override
  public DistinctFiles copy() {
    DistinctFiles c = new DistinctFiles();
    synchronized (paths) {
      c.paths.addAll(paths);
    }
    return c;
  }

  @Override
  public void reset() {
    paths.clear();
  }

  @Override
  public void add(String path) {
    paths.add(path);
  }

  @Override
  public void merge(AccumulatorV2<String, Set<String>> other) {
    paths.addAll(other.value());
  }

  /** A snapshot: the paths so far. */
  @Override
  public Set<String> value() {
    synchronized (paths) {
      return Set.copyOf(paths);
    }
  }

  public int count() {
    return paths.size();
  }
}
