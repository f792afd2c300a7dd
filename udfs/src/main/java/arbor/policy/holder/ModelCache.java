package arbor.policy.holder;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.hadoop.fs.FileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps {@link RemoteModelFolder}'s local cache within a size. Every changed model is a new
 * entry, so on a long-lived executor the old ones would fill its disk: after each new copy the
 * least recently used entries are deleted until the complete ones fit in the limit, and partial
 * copies left by a JVM killed mid-copy are deleted once they are a day old.
 *
 * <p>Several JVMs may share the cache. An entry used within the last hour is never deleted (a
 * load may be opening its files), and a load that already mapped its files keeps them: deleting
 * only unlinks them. Pruning never fails a load: what cannot be deleted is logged and left.
 */
final class ModelCache {

  /** An entry used more recently than this may be in use by another JVM. */
  static final Duration IN_USE = Duration.ofHours(1);
  /** A partial copy older than this was left by a JVM that died while copying. */
  static final Duration ABANDONED = Duration.ofDays(1);

  private static final Logger LOG = LoggerFactory.getLogger(ModelCache.class);
  private static final Pattern ENTRY = Pattern.compile("[0-9a-f]{32}");
  private static final Pattern PARTIAL = Pattern.compile("[0-9a-f]{32}\\.partial-.*");

  private ModelCache() {}


  /** Records that {@code entry} was used now: its folder's time is its last use. */
  static void used(Path entry) {
    try {
      Files.setLastModifiedTime(entry, FileTime.from(Instant.now()));
    } catch (IOException e) {
      LOG.warn("model cache: could not record the use of {}: {}", entry, e.toString());
    }
  }

  /**
   * Deletes abandoned partial copies, then the least recently used complete entries other than
   * {@code keep} until the complete ones take at most {@code limitBytes}; returns what it deleted.
   */
  static List<Path> prune(Path root, Path keep, long limitBytes, Instant now) {
    List<Path> deleted = new ArrayList<>();
    List<Entry> entries = new ArrayList<>();
    try (Stream<Path> s = Files.list(root)) {
      for (Path p : s.toList()) {
        String name = p.getFileName().toString();
        if (PARTIAL.matcher(name).matches() && olderThan(lastUse(p), ABANDONED, now)) {
          delete(p, "a partial copy left for over a day", deleted);
        } else if (ENTRY.matcher(name).matches() && Files.isDirectory(p)) {
          entries.add(new Entry(p, lastUse(p), bytes(p)));
        }
      }
    } catch (IOException e) {
      LOG.warn("model cache {}: could not list it to prune: {}", root, e.toString());
      return deleted;
    }
    long total = entries.stream().mapToLong(Entry::bytes).sum();
    entries.sort(Comparator.comparing(Entry::lastUse));
    for (Entry e : entries) {
      if (total <= limitBytes) {
        break;
      }
      if (e.path().equals(keep) || !olderThan(e.lastUse(), IN_USE, now)) {
        continue;
      }
      if (delete(e.path(), "least recently used, the cache is over " + limitBytes + " bytes",
          deleted)) {
        total -= e.bytes();
      }
    }
    if (total > limitBytes) {
      LOG.warn("model cache {} holds {} bytes, over its limit of {} ({}), in entries used within"
          + " the last hour", root, total, limitBytes, "policy.djl.cache.max_gb");
    }
    return deleted;
  }

  /** A complete copy, read once: its folder, last use and size. */
  private record Entry(Path path, FileTime lastUse, long bytes) {}

  private static boolean delete(Path p, String why, List<Path> deleted) {
    if (FileUtil.fullyDelete(p.toFile())) {
      LOG.info("model cache: deleted {} ({})", p, why);
      deleted.add(p);
      return true;
    }
    LOG.warn("model cache: could not delete {} ({})", p, why);
    return false;
  }

  private static boolean olderThan(FileTime lastUse, Duration age, Instant now) {
    return lastUse.toInstant().isBefore(now.minus(age));
  }

  private static FileTime lastUse(Path p) {
    try {
      return Files.getLastModifiedTime(p);
    } catch (IOException e) {
      return FileTime.from(Instant.EPOCH);  // gone or unreadable: the first to go
    }
  }

  private static long bytes(Path entry) {
    try (Stream<Path> files = Files.walk(entry)) {
      return files.filter(Files::isRegularFile).mapToLong(f -> {
        try {
          return Files.size(f);
        } catch (IOException e) {
          return 0;
        }
      }).sum();
    } catch (IOException e) {
      return 0;
    }
  }
}
