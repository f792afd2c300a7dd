package arbor.policy.model;

import ai.djl.ndarray.NDArray;
import ai.djl.ndarray.types.Shape;
import arbor.policy.kernels.PackedMatrix;
import arbor.policy.kernels.Parallel;
import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * The generation engine's CPU linears: each weight is packed once into a {@link PackedMatrix}
 * and multiplied with the Java Vector API, batch-invariant by construction and without the
 * per-call weight repacking of libtorch's GEMM. The packed copies live in the Java heap (about
 * 4 bytes per weight, as much again as the F32 model) and are repacked after the weights change
 * in place ({@link Qwen3Model#weightsVersion}).
 *
 * <p>The Vector API is an incubator module: the JVM needs {@code --add-modules
 * jdk.incubator.vector} (Arbor's JVM options carry it; {@link #missing} says when it is absent,
 * and then no vector class may be touched) and, to be fast, C2 ({@link #slow}).
 */
public final class VectorLinear implements Qwen3Model.Linear, AutoCloseable {

  private final Parallel parallel;
  private final LongSupplier weightsVersion;
  private final Map<NDArray, PackedMatrix> packed = new IdentityHashMap<>();
  private long packedVersion;

  /**
   * Multiplies with {@code threads} threads: the caller's and {@code threads - 1} of a pool.
   * Packed copies are dropped whenever {@code weightsVersion} changes.
   */
  public VectorLinear(int threads, LongSupplier weightsVersion) {
    String why = missing();
    if (why != null) {
      throw new IllegalStateException("the vector matmul cannot run in this JVM: " + why);
    }
    this.parallel = new Parallel(threads, "arbor-matmul");
    this.weightsVersion = weightsVersion;
    this.packedVersion = weightsVersion.getAsLong();
  }

  /** Why this JVM cannot run the vector matmul at all, or null if it can. */
  public static String missing() {
    return ModuleLayer.boot().findModule("jdk.incubator.vector").isEmpty()
        ? "the JVM was started without --add-modules=jdk.incubator.vector" : null;
  }

  /**
   * Why the vector matmul cannot be fast in this JVM (no C2, narrow vectors), or null. Whether
   * it beats libtorch's GEMM on a given CPU is measured, not checked: {@code bench model}.
   */
  public static String slow() {
    if (missing() != null) {
      return missing();
    }
    if (System.getProperty("java.vm.info", "").contains("interpreted")) {
      return "the JVM runs interpreted (-Xint)";
    }
    try {
      var hotspot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
      boolean tiered = Boolean.parseBoolean(hotspot.getVMOption("TieredCompilation").getValue());
      int level = Integer.parseInt(hotspot.getVMOption("TieredStopAtLevel").getValue());
      if (tiered && level < 4) {
        // Without C2 every vector operation allocates: many times slower than scalar code.
        return "C2 is off (-XX:TieredStopAtLevel=" + level + ")";
      }
    } catch (RuntimeException e) {
      // Not HotSpot: nothing more to check.
    }
    if (PackedMatrix.lanes() < 8) {
      return "the CPU's vectors hold " + PackedMatrix.lanes() + " floats";
    }
    return null;
  }

  /** Bytes of heap the packed copies of {@code config}'s weights take. */
  public static long packedBytes(ModelConfig config) {
    return config.matmulParameters() * Float.BYTES;
  }

  public int threads() {
    return parallel.threads();
  }

  /** The threads it multiplies with, for the engine's other kernels. */
  public Parallel parallel() {
    return parallel;
  }

  @Override
  public NDArray linear(NDArray x, NDArray weight, NDArray bias) {
    Shape shape = x.getShape();
    int in = (int) shape.getLastDimension();
    int rows = (int) (shape.size() / in);
    float[] y = multiply(x.toFloatArray(), rows, weight, bias == null ? null : bias.toFloatArray());
    return x.getManager().create(y,
        shape.slice(0, shape.dimension() - 1).add(weight.getShape().get(0)));
  }

  /** x (rows, in) W^T + bias for W in HF's (out, in) layout; bias may be null. */
  public float[] multiply(float[] x, int rows, NDArray weight, float[] bias) {
    return multiply(x, rows, new NDArray[] {weight}, new float[][] {bias})[0];
  }

  /**
   * {@link #multiply(float[], int, NDArray, float[])} for several weights of one input width,
   * in one pass over the threads; {@code biases[i]} may be null. Each result has the same bits
   * as when multiplied alone.
   */
  public float[][] multiply(float[] x, int rows, NDArray[] weights, float[][] biases) {
    PackedMatrix[] packed = new PackedMatrix[weights.length];
    for (int i = 0; i < weights.length; i++) {
      packed[i] = packedFor(weights[i]);
    }
    float[][] y = PackedMatrix.multiply(packed, x, rows, parallel);
    for (int i = 0; i < y.length; i++) {
      float[] bias = biases[i];
      if (bias != null) {
        for (int r = 0; r < rows; r++) {
          for (int c = 0; c < bias.length; c++) {
            y[i][r * bias.length + c] += bias[c];
          }
        }
      }
    }
    return y;
  }

  private synchronized PackedMatrix packedFor(NDArray weight) {
    long version = weightsVersion.getAsLong();
    if (version != packedVersion) {
      packed.clear();
      packedVersion = version;
    }
    return packed.computeIfAbsent(weight, w -> {
      long[] s = w.getShape().getShape();
      return new PackedMatrix(w.toFloatArray(), Math.toIntExact(s[0]), Math.toIntExact(s[1]));
    });
  }

  @Override
  public void close() {
    parallel.close();
    synchronized (this) {
      packed.clear();
    }
  }

}
