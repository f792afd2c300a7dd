package arbor.rlm.sandbox;

import org.graalvm.polyglot.Engine;

/**
 * The one GraalPy {@link Engine} of this JVM. All contexts share it (the first context costs
 * seconds, later ones a tenth of that), and therefore all use the same access settings. It lives
 * as long as the JVM and is closed by a shutdown hook.
 */
public final class PythonEngine {
  private PythonEngine() {}

  private static final class Holder {
    static final Engine ENGINE = create();

    private static Engine create() {
      Engine engine = Engine.newBuilder("python")
          // Plain Temurin runs Truffle interpreted; that is expected here, not worth a warning.
          .option("engine.WarnInterpreterOnly", "false")
          .build();
      Runtime.getRuntime().addShutdownHook(Thread.ofPlatform().unstarted(() -> engine.close(true)));
      return engine;
    }
  }

  public static Engine shared() {
    return Holder.ENGINE;
  }
}
