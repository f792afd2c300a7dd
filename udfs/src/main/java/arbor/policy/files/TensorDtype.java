package arbor.policy.files;

/**
 * The floating-point element types Arbor reads and writes in safetensors files. Everything is
 * computed in F32: F16 and BF16 are widened in Java on load (DJL's PyTorch CPU build aborts the
 * JVM on any BF16 tensor) and narrowed with round-to-nearest-even on export.
 */
public enum TensorDtype {
  F32(4),
  F16(2),
  BF16(2);

  private final int bytes;

  TensorDtype(int bytes) {
    this.bytes = bytes;
  }

  public int bytes() {
    return bytes;
  }

  /** The safetensors dtype string, e.g. {@code "BF16"}. */
  public static TensorDtype parse(String name, String tensor) {
    return switch (name) {
      case "F32" -> F32;
      case "F16" -> F16;
      case "BF16" -> BF16;
      default -> throw new IllegalArgumentException("Tensor '" + tensor + "' has dtype " + name
          + "; Arbor reads F32, F16 and BF16 weights. Convert the checkpoint to one of them.");
    };
  }

  /** The HF {@code torch_dtype} name of this type. */
  public String torchName() {
    return switch (this) {
      case F32 -> "float32";
      case F16 -> "float16";
      case BF16 -> "bfloat16";
    };
  }

  public static TensorDtype fromTorchName(String torchDtype) {
    return switch (torchDtype == null ? "float32" : torchDtype) {
      case "float16" -> F16;
      case "bfloat16" -> BF16;
      default -> F32;
    };
  }

  /** BF16 is the top half of an F32: widening is exact. */
  public static float bf16ToFloat(short bits) {
    return Float.intBitsToFloat((bits & 0xFFFF) << 16);
  }

  /** Rounds to the nearest BF16, ties to even, keeping NaN a NaN. */
  public static short floatToBf16(float value) {
    int bits = Float.floatToRawIntBits(value);
    if (Float.isNaN(value)) {
      return (short) ((bits >>> 16) | 0x40);
    }
    int roundingBias = 0x7FFF + ((bits >>> 16) & 1);
    return (short) ((bits + roundingBias) >>> 16);
  }
}
