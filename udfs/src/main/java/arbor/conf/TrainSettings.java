package arbor.conf;

import java.io.Serializable;

/**
 * The {@code train} job's loop (docs/training.md, "Running training").
 *
 * @param steps the run's total number of training steps (a resumed run continues up to it)
 * @param queriesPerStep queries of the {@code train} split per step, each rolled out
 *     {@code rollouts.samples} times; the split is cycled through in a per-run hash order
 * @param evalEvery evaluate every this many steps (0: never); the evaluation itself is wired
 *     by the {@code eval} stage
 * @param progressSeconds how often the console reports the rollout stage's finished tasks
 */
public record TrainSettings(int steps, int queriesPerStep, int evalEvery, int progressSeconds)
    implements Serializable {

  public TrainSettings {
    if (steps < 1) throw new IllegalArgumentException("train.steps must be >= 1, got " + steps);
    if (queriesPerStep < 1) {
      throw new IllegalArgumentException("train.queries_per_step must be >= 1, got " + queriesPerStep);
    }
    if (evalEvery < 0) throw new IllegalArgumentException("train.eval_every must be >= 0, got " + evalEvery);
    if (progressSeconds < 1) {
      throw new IllegalArgumentException("train.progress_seconds must be >= 1, got " + progressSeconds);
    }
  }
}
