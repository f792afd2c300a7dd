package arbor.policy.model;

/** RoPE inverse frequencies for a config, with its {@code rope_scaling} applied. */
final class RopeFrequencies {

  private RopeFrequencies() {}

  /** theta^(-2i/D) for i in [0, D/2), rescaled as the config's rope_scaling says. */
  static double[] inverse(ModelConfig c) {
    int half = c.headDim() / 2;
    double[] f = new double[half];
    for (int i = 0; i < half; i++) {
      f[i] = 1.0 / Math.pow(c.ropeTheta(), (2.0 * i) / c.headDim());
    }
    ModelConfig.RopeScaling s = c.ropeScaling();
    if (s == null) {
      return f;
    }
    switch (s.type()) {
      // Dividing every frequency by the factor is the same as dividing positions by it.
      case "linear" -> {
        for (int i = 0; i < half; i++) {
          f[i] /= s.factor();
        }
      }
      // Llama 3.1: keep high frequencies, slow low ones by the factor, blend in between.
      case "llama3" -> {
        double lowWavelen = s.originalMaxPositions() / s.lowFreqFactor();
        double highWavelen = s.originalMaxPositions() / s.highFreqFactor();
        for (int i = 0; i < half; i++) {
          double wavelen = 2 * Math.PI / f[i];
          if (wavelen > lowWavelen) {
            f[i] /= s.factor();
          } else if (wavelen >= highWavelen) {
            double smooth = (s.originalMaxPositions() / wavelen - s.lowFreqFactor())
                / (s.highFreqFactor() - s.lowFreqFactor());
            f[i] = (1 - smooth) * f[i] / s.factor() + smooth * f[i];
          }
        }
      }
      default -> throw new IllegalArgumentException("Unsupported rope_scaling " + s.type());
    }
    return f;
  }
}
