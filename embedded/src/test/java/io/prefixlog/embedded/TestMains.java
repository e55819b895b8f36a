package io.prefixlog.embedded;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/** Main classes that tests run as child processes. Their stdout is their protocol. */
public final class TestMains {
  private TestMains() {}

  /** Prints its args to stdout, then to stderr, and exits with the status in the first arg. */
  public static final class Echo {
    private Echo() {}

    public static void main(String[] args) {
      String joined = String.join(" ", args);
      System.out.println("out " + joined);
      System.out.flush();
      System.err.println("err " + joined);
      System.err.flush();
      System.exit(Integer.parseInt(args[0]));
    }
  }

  /**
   * Prints "ready" and waits forever. Its shutdown hook prints "shutdown hook ran", then sleeps for
   * the number of milliseconds in the first arg (to play a child that ignores SIGTERM).
   */
  public static final class SleepForever {
    private SleepForever() {}

    public static void main(String[] args) throws InterruptedException {
      long hookMillis = Long.parseLong(args[0]);
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    System.out.println("shutdown hook ran");
                    System.out.flush();
                    sleep(hookMillis);
                    System.out.println("shutdown hook done");
                    System.out.flush();
                  }));
      System.out.println("ready");
      System.out.flush();
      new CountDownLatch(1).await();
    }

    private static void sleep(long millis) {
      try {
        Thread.sleep(millis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /**
   * An intermediate JVM: starts a {@link KafkaBroker} in the data dir given as first arg, prints
   * "broker pid=PID port=PORT" and waits forever.
   */
  public static final class BrokerHost {
    private BrokerHost() {}

    public static void main(String[] args) throws InterruptedException {
      KafkaBroker broker = KafkaBroker.start(KafkaBroker.Options.defaults(Path.of(args[0])));
      String port = broker.bootstrapServers().substring(broker.bootstrapServers().indexOf(':') + 1);
      System.out.println("broker pid=" + broker.pid() + " port=" + port);
      System.out.flush();
      new CountDownLatch(1).await();
      broker.close();
    }
  }
}
