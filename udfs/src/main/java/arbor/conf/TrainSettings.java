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
 * @param progressSeconds how often a long phase prints its progress line (arbor.progress.Progress)
 * @param seed what orders the train split and seeds the step's trees; empty: the run id. Runs
 *     given one seed take the same queries at each step and draw the same tree seeds, so that
 *     two objectives can be compared on common random numbers
 */
public record TrainSettings(int steps, int queriesPerStep, int evalEvery, int progressSeconds, String seed)
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
    if (seed == null) throw new IllegalArgumentException("train.seed must be a string (empty: the run id)");
  }

  /** The same loop with another query order and tree seeds. */
  public TrainSettings withSeed(String other) {
    return new TrainSettings(steps, queriesPerStep, evalEvery, progressSeconds, other);
  }

  /** The key of run {@code runId}'s query order and tree seeds. */
  public String seedKey(String runId) {
    return seed.isEmpty() ? runId : seed;
  }
}
