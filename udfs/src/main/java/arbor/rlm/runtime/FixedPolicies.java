package arbor.rlm.runtime;

import arbor.conf.ApiKeys;
import arbor.conf.ArborConfig;
import arbor.conf.EndpointSettings;
import arbor.conf.PolicyKind;
import arbor.rlm.policy.ExpertPolicy;
import arbor.rlm.policy.Generation;
import arbor.rlm.policy.PassageExpert;
import arbor.rlm.policy.Policy;
import arbor.rlm.policy.ReplayPolicy;
import arbor.rlm.policy.endpoint.AnthropicEndpoint;
import arbor.rlm.policy.endpoint.EndpointPolicy;
import arbor.rlm.policy.endpoint.OpenAiEndpoint;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;

/**
 * The policies that do not change with a checkpoint (the scripted expert, a replay file, an
 * endpoint), built from the configuration on first use, one per kind, and closed together (an
 * endpoint's connection pool).
 */
public final class FixedPolicies implements AutoCloseable {
  private final ArborConfig config;
  private final ApiKeys keys;
  private final Map<PolicyKind, Policy> built = new EnumMap<>(PolicyKind.class);

  FixedPolicies(ArborConfig config, ApiKeys keys) {
    this.config = config;
    this.keys = keys;
  }

  synchronized Policy get(PolicyKind kind) {
    Policy p = built.get(kind);
    if (p == null) {
      p = switch (kind) {
        case SCRIPTED -> scripted(config);
        case REPLAY -> replay();
        case OPENAI -> endpoint(config.policy().openai(), true);
        case ANTHROPIC -> endpoint(config.policy().anthropic(), false);
        case DJL -> throw new IllegalArgumentException("djl is leased by version, not fixed");
      };
      built.put(kind, p);
    }
    return p;
  }

  /** The scripted expert of {@code policy.scripted.program}. */
  public static Policy scripted(ArborConfig config) {
    return config.policy().scripted().passages()
        ? new PassageExpert(new PassageExpert.Settings(config.rlm().maxChildren(), config.rlm().bindQuestion(),
            ExpertPolicy.Settings.defaults().seed()))
        : new ExpertPolicy(ExpertPolicy.Settings.defaults());
  }

  private Policy replay() {
    String file = config.policy().replay().file();
    if (file.isBlank()) {
      throw new IllegalArgumentException("the replay policy needs policy.replay.file (or --replay FILE)");
    }
    try {
      return ReplayPolicy.fromFile(Path.of(file));
    } catch (IOException e) {
      throw new UncheckedIOException("replay policy: cannot read " + file + ": " + e.getMessage(), e);
    }
  }

  private Policy endpoint(EndpointSettings s, boolean openai) {
    Generation.Sampling sampling = new Generation.Sampling(s.temperature(), 1.0, 0);
    return new EndpointPolicy(openai ? OpenAiEndpoint.create(s, keys.byVariable()) : AnthropicEndpoint.create(s, keys.byVariable()), sampling);
  }

  @Override
  public synchronized void close() {
    for (Policy p : built.values()) {
      if (p instanceof AutoCloseable c) {
        try {
          c.close();
        } catch (Exception ignored) {
          // Closing an endpoint's connection pool at exit: nothing left to do about a failure.
        }
      }
    }
  }
}
