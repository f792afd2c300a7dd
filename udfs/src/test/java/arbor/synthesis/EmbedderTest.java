package arbor.synthesis;

import static org.junit.jupiter.api.Assertions.*;

import arbor.conf.EmbeddingSettings;
import java.util.List;
import org.junit.jupiter.api.Test;

class EmbedderTest {
  private static final EmbeddingSettings MINILM = new EmbeddingSettings("all-minilm-l6-v2-q", "", "", 2000, 64);

  @Test
  void theBuiltInModelGivesUnitVectorsThatPlaceRelatedTextsCloser() {
    Embedder embedder = Embedder.forSettings(MINILM);
    List<float[]> v = embedder.embed(List.of(
        "Graph neural networks for molecule property prediction",
        "Message passing networks predict chemical properties of molecules",
        "A history of medieval French poetry"));
    assertEquals(384, v.get(0).length);
    for (float[] x : v) assertEquals(1.0, Vectors.dot(x, x), 1e-4);
    assertTrue(Vectors.dot(v.get(0), v.get(1)) > Vectors.dot(v.get(0), v.get(2)) + 0.2,
        Vectors.dot(v.get(0), v.get(1)) + " vs " + Vectors.dot(v.get(0), v.get(2)));
  }

  @Test
  void theModelIsLoadedOncePerJvm() {
    assertSame(Embedder.forSettings(MINILM), Embedder.forSettings(MINILM));
  }

  @Test
  void anUnknownModelNamesTheKeyAndTheChoices() {
    var e = assertThrows(IllegalArgumentException.class, () -> Embedder.modelName(new EmbeddingSettings("bert", "", "", 10, 1)));
    assertTrue(e.getMessage().startsWith("synthesis.embedding.model: unknown model 'bert'"), e.getMessage());
  }
}
