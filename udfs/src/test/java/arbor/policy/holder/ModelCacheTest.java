package arbor.policy.holder;

import arbor.conf.DjlPolicySettings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ModelCacheTest {

  @TempDir Path tmp;

  private final Instant now = Instant.now();

  /** A cache entry of {@code bytes} bytes last used {@code ago} before now. */
  private Path entry(Path root, char fill, int bytes, Duration ago) throws IOException {
    Path dir = Files.createDirectories(root.resolve(String.valueOf(fill).repeat(32)));
    Files.write(dir.resolve("model.safetensors"), new byte[bytes]);
    Files.setLastModifiedTime(dir, FileTime.from(now.minus(ago)));
    return dir;
  }

  private static Set<String> names(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).collect(Collectors.toSet());
    }
  }

  @Test
  void theLeastRecentlyUsedGoUntilTheRestFitButNeverOneInUseOrTheOneJustCopied()
      throws IOException {
    Path root = Files.createDirectories(tmp.resolve("cache"));
    Path kept = entry(root, 'a', 100, Duration.ofHours(4));   // the copy the caller returns
    Path oldest = entry(root, 'b', 100, Duration.ofHours(3));
    Path old = entry(root, 'c', 100, Duration.ofHours(2));
    Path recent = entry(root, 'd', 100, Duration.ofMinutes(10));
    Path other = Files.createDirectories(root.resolve("notes"));

    List<Path> deleted = ModelCache.prune(root, kept, 150, now);

    assertEquals(List.of(oldest, old), deleted);
    assertEquals(Set.of(kept.getFileName().toString(), recent.getFileName().toString(), "notes"),
        names(root), "over the limit still, but what is left is kept or in use");
    assertTrue(Files.isDirectory(other));
    // Under the limit nothing goes, however old.
    assertEquals(List.of(), ModelCache.prune(root, kept, 1_000, now.plus(Duration.ofDays(9))));
  }

  @Test
  void aPartialCopyGoesOnceADayOldAndNotBefore() throws IOException {
    Path root = Files.createDirectories(tmp.resolve("cache"));
    Path abandoned = Files.createDirectories(root.resolve("e".repeat(32) + ".partial-1"));
    Files.setLastModifiedTime(abandoned, FileTime.from(now.minus(Duration.ofHours(25))));
    Path copying = Files.createDirectories(root.resolve("f".repeat(32) + ".partial-2"));

    assertEquals(List.of(abandoned), ModelCache.prune(root, null, Long.MAX_VALUE, now));
    assertTrue(Files.isDirectory(copying));
  }

  @Test
  void aNewCopyPrunesTheCacheAndAHitCountsAsAUse() throws IOException {
    Path cache = tmp.resolve("cache");
    Path first = RemoteModelFolder.local(model("one").toUri().toString(), new Configuration(),
        cache, 150);
    Files.setLastModifiedTime(first, FileTime.from(now.minus(Duration.ofHours(2))));
    String second = model("two").toUri().toString();
    Path copy = RemoteModelFolder.local(second, new Configuration(), cache, 150);

    assertFalse(Files.exists(first), "the older entry went: two do not fit in 150 bytes");
    assertEquals(Set.of(copy.getFileName().toString()), names(cache));

    Files.setLastModifiedTime(copy, FileTime.from(now.minus(Duration.ofHours(2))));
    assertEquals(copy, RemoteModelFolder.local(second, new Configuration(), cache, 150));
    assertTrue(Files.getLastModifiedTime(copy).toInstant().isAfter(now.minusSeconds(60)),
        "a hit records its use");
  }

  @Test
  void theCacheIsASettingAndANegativeLimitIsRefusedNamingItsKey() {
    DjlPolicySettings.Cache cache = new DjlPolicySettings.Cache(tmp.toString(), 2.5);
    assertEquals((long) (2.5 * (1L << 30)), cache.maxBytes());
    assertEquals(tmp, cache.root());
    assertEquals("arbor-models", new DjlPolicySettings.Cache("", 50).root().getFileName().toString());
    for (double bad : new double[] {-1, Double.NaN, Double.POSITIVE_INFINITY}) {
      var e = assertThrows(IllegalArgumentException.class, () -> new DjlPolicySettings.Cache("", bad));
      assertTrue(e.getMessage().contains("policy.djl.cache.max_gb"), e.getMessage());
    }
  }

  private Path model(String name) throws IOException {
    Path dir = Files.createDirectories(tmp.resolve(name));
    Files.writeString(dir.resolve("config.json"), "{\"model_type\": \"qwen3\", \"name\": \"" + name + "\"}");
    Files.write(dir.resolve("model.safetensors"), new byte[60]);
    return dir;
  }
}
