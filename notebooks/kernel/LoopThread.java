package org.rapaio.jupyter.kernel.channels;

/**
 * Arbor's stand-in for the Java kernel's channel loop thread; bin/arbor notebooks compiles it
 * and puts it ahead of the kernel jar on the kernel's class path. The kernel's own class marks
 * itself running only after {@code Thread.start()} returns, so when the new thread is scheduled
 * first it sees "not running" and ends at once: the heartbeat channel then never answers and
 * Jupyter reports "Kernel didn't respond" (about one start in five on a loaded machine). Here
 * the flag is true from construction, before the thread can run. Same public shape as the
 * class it replaces (constructor, run, shutdown), which the kernel's channels call.
 */
public final class LoopThread extends Thread {
  private volatile boolean running = true;
  private boolean warned;
  private final long sleepMillis;
  private final Runnable body;

  public LoopThread(String name, long sleepMillis, Runnable body) {
    super(name);
    this.sleepMillis = sleepMillis;
    this.body = body;
  }

  @Override
  public void run() {
    try {
      while (running) {
        try {
          body.run();
        } catch (RuntimeException e) {
          // The shell channel's loop can run before the kernel has set its message handlers
          // (a NullPointerException seen on a loaded machine); ending the thread then would
          // leave the kernel deaf, so the loop tries again on its next turn.
          if (!warned) System.err.println("arbor kernel patch: " + getName() + " loop failed once, retrying: " + e);
          warned = true;
        }
        Thread.sleep(sleepMillis);
      }
    } catch (InterruptedException e) {
      running = false;
    }
  }

  public void shutdown() {
    running = false;
  }
}
