package arbor.policy.holder;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RemoteModelFolderTest {

  @TempDir Path tmp;

  private Path model(String name) throws IOException {
    Path dir = Files.createDirectories(tmp.resolve(name));
    Files.writeString(dir.resolve("config.json"), "{\"model_type\": \"qwen3\"}");
    Files.write(dir.resolve("model.safetensors"), new byte[] {1, 2, 3, 4});
    Files.writeString(dir.resolve(".model.safetensors.crc"), "a Hadoop checksum, not model data");
    return dir;
  }

  private static List<String> names(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void aPlainPathIsUsedWhereItIs() throws IOException {
    Path dir = model("plain");
    assertFalse(RemoteModelFolder.isUri(dir.toString()));
    assertFalse(RemoteModelFolder.isUri("relative/model"));
    assertFalse(RemoteModelFolder.isUri("C:\\models\\qwen"));
    assertEquals(dir, RemoteModelFolder.local(dir.toString(), new Configuration(), tmp.resolve("cache"), Long.MAX_VALUE));
    assertFalse(Files.exists(tmp.resolve("cache")));
  }

  @Test
  void aUriIsCopiedOnceAndCopiedAgainWhenItChanges() throws IOException {
    Path dir = model("remote");
    Path cache = tmp.resolve("cache");
    String uri = dir.toUri().toString();
    assertTrue(RemoteModelFolder.isUri(uri));
    Path first = RemoteModelFolder.local(uri, new Configuration(), cache, Long.MAX_VALUE);
    assertTrue(first.startsWith(cache), first.toString());
    assertEquals(List.of("config.json", "model.safetensors"), names(first));
    assertArrayEquals(new byte[] {1, 2, 3, 4}, Files.readAllBytes(first.resolve("model.safetensors")));
    assertEquals(first, RemoteModelFolder.local(uri, new Configuration(), cache, Long.MAX_VALUE));
    assertEquals(1, names(cache).size(), "one cache entry, no partial copy left: " + names(cache));

    // New weights of another size and time: a fresh copy, never the stale one.
    Files.write(dir.resolve("model.safetensors"), new byte[] {9, 9, 9, 9, 9});
    Files.setLastModifiedTime(dir.resolve("model.safetensors"), FileTime.fromMillis(System.currentTimeMillis() + 5000));
    Path second = RemoteModelFolder.local(uri, new Configuration(), cache, Long.MAX_VALUE);
    assertNotEquals(first, second);
    assertArrayEquals(new byte[] {9, 9, 9, 9, 9}, Files.readAllBytes(second.resolve("model.safetensors")));
  }

  @Test
  void aBadUriFailsNamingIt() throws IOException {
    Path cache = tmp.resolve("cache");
    String missing = tmp.resolve("absent").toUri().toString();
    var e = assertThrows(IOException.class, () -> RemoteModelFolder.local(missing, new Configuration(), cache, Long.MAX_VALUE));
    assertTrue(e.getMessage().contains(missing) && e.getMessage().contains("does not exist"), e.getMessage());

    Path notAModel = Files.createDirectories(tmp.resolve("empty"));
    Files.writeString(notAModel.resolve("notes.txt"), "no config here");
    String uri = notAModel.toUri().toString();
    e = assertThrows(IOException.class, () -> RemoteModelFolder.local(uri, new Configuration(), cache, Long.MAX_VALUE));
    assertTrue(e.getMessage().contains(uri) && e.getMessage().contains("config.json"), e.getMessage());

    String file = notAModel.resolve("notes.txt").toUri().toString();
    e = assertThrows(IOException.class, () -> RemoteModelFolder.local(file, new Configuration(), cache, Long.MAX_VALUE));
    assertTrue(e.getMessage().contains(file) && e.getMessage().contains("not a Hugging Face model folder"), e.getMessage());

    var unknown = assertThrows(IOException.class,
        () -> RemoteModelFolder.local("nosuchfs://host/model", new Configuration(), cache, Long.MAX_VALUE));
    assertTrue(unknown.getMessage().contains("nosuchfs://host/model"), unknown.getMessage());
  }
}
