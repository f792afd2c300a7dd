package arbor.policy.holder;

import arbor.conf.DjlPolicySettings;
import arbor.text.Hashes;
import arbor.policy.model.HfModelFolder;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.FileUtil;
import org.apache.spark.SparkEnv;
import scala.Tuple2;

/**
 * A Hugging Face model folder named by a plain path or by any Hadoop URI ({@code file:/...},
 * {@code hdfs://...}, {@code s3a://...}). A plain path is used where it is; a URI's files are
 * copied once through Hadoop's file systems into a local cache folder, because the model reader
 * maps local files. The cache entry is named by a hash of the URI and each file's name, size and
 * modification time, so a changed model is copied again rather than served stale, and the copy
 * is renamed into place only when complete, so JVMs sharing the cache never see half a folder.
 * After each new copy the cache is pruned to its size limit ({@link ModelCache}).
 */
public final class RemoteModelFolder {

  /** The cache's location; defaults to {@code <java.io.tmpdir>/arbor-models}. */

  // Two characters at least, so a Windows drive letter is not taken for a scheme.
  private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]+:.*");

  private RemoteModelFolder() {}

  /** True when {@code location} names a Hadoop URI rather than a local path. */
  public static boolean isUri(String location) {
    return SCHEME.matcher(location).matches();
  }

  /**
   * A local folder holding {@code location}'s files: the path itself, or the cached copy of a
   * URI, read with this JVM's Spark {@code spark.hadoop.*} settings when it runs in Spark.
   */
  public static Path local(String location, DjlPolicySettings.Cache cache) throws IOException {
    if (!isUri(location)) {
      return Path.of(location);
    }
    return local(location, sparkHadoopConf(), cache.root(), cache.maxBytes());
  }

  /** The same, keeping at most {@code cacheBytes} of complete copies ({@link ModelCache}). */
  static Path local(String location, Configuration conf, Path cacheRoot, long cacheBytes)
      throws IOException {
    if (!isUri(location)) {
      return Path.of(location);
    }
    org.apache.hadoop.fs.Path dir = new org.apache.hadoop.fs.Path(location);
    FileSystem fs;
    try {
      fs = dir.getFileSystem(conf);
    } catch (IOException e) {
      throw new IOException("model folder " + location + ": no Hadoop file system for it: " + e.getMessage(), e);
    }
    if (!fs.exists(dir)) {
      throw new IOException("model folder " + location + " does not exist (looked up through Hadoop's "
          + fs.getScheme() + " file system)");
    }
    if (!fs.getFileStatus(dir).isDirectory()) {
      throw new IOException("model folder " + location + " is a file, not a Hugging Face model folder");
    }
    List<FileStatus> files = Arrays.stream(fs.listStatus(dir))
        .filter(FileStatus::isFile)
        .filter(f -> !hidden(f.getPath().getName()))
        .sorted(Comparator.comparing(f -> f.getPath().getName()))
        .toList();
    if (files.stream().noneMatch(f -> f.getPath().getName().equals(HfModelFolder.CONFIG))) {
      throw new IOException("model folder " + location + " has no " + HfModelFolder.CONFIG
          + " (the model's HF config): it is not a Hugging Face model folder");
    }
    Path target = cacheRoot.resolve(key(location, files));
    synchronized (RemoteModelFolder.class) {
      if (Files.isDirectory(target)) {
        ModelCache.used(target);
        return target;
      }
      Files.createDirectories(cacheRoot);
      Path partial = cacheRoot.resolve(target.getFileName() + ".partial-" + UUID.randomUUID());
      Files.createDirectory(partial);
      try {
        for (FileStatus f : files) {
          try (InputStream in = fs.open(f.getPath())) {
            Files.copy(in, partial.resolve(f.getPath().getName()));
          }
        }
        try {
          Files.move(partial, target, StandardCopyOption.ATOMIC_MOVE);
        } catch (FileAlreadyExistsException | DirectoryNotEmptyException e) {
          // Another JVM on this machine finished the same copy first; its copy is as good.
        } catch (AtomicMoveNotSupportedException e) {
          throw new IOException("model cache " + cacheRoot + " cannot rename folders atomically; set"
              + " policy.djl.cache.dir to a local folder", e);
        }
      } finally {
        if (Files.exists(partial)) {
          FileUtil.fullyDelete(partial.toFile());
        }
      }
      ModelCache.prune(cacheRoot, target, cacheBytes, Instant.now());
      return target;
    }
  }

  /** Hadoop's convention: names starting with '.' or '_' (checksums, markers) are not data. */
  private static boolean hidden(String name) {
    return name.startsWith(".") || name.startsWith("_");
  }

  private static String key(String location, List<FileStatus> files) {
    StringBuilder s = new StringBuilder(location);
    for (FileStatus f : files) {
      s.append('\n').append(f.getPath().getName()).append('\t').append(f.getLen()).append('\t')
          .append(f.getModificationTime());
    }
    // 128 bits of the SHA-256: unique enough for a cache folder's name.
    return Hashes.sha256(s.toString()).substring(0, 32);
  }

  /** The Spark application's {@code spark.hadoop.*} settings (credentials, endpoints), if any. */
  private static Configuration sparkHadoopConf() {
    Configuration conf = new Configuration();
    SparkEnv env = SparkEnv.get();
    if (env != null) {
      for (Tuple2<String, String> e : env.conf().getAll()) {
        if (e._1().startsWith("spark.hadoop.")) {
          conf.set(e._1().substring("spark.hadoop.".length()), e._2());
        }
      }
    }
    return conf;
  }
}
