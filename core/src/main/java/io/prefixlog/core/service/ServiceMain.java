package io.prefixlog.core.service;

import io.prefixlog.core.config.ConfigDef;
import io.prefixlog.core.config.ConfigException;
import io.prefixlog.core.config.Settings;
import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code main()} of every prefixlog process (stream app, ingest bridge, KV subscriber): reads
 * the settings from the environment, or from the properties file that {@code --config FILE} or
 * {@code PREFIXLOG_CONFIG_FILE} names (the environment still wins); starts the service; runs until
 * SIGTERM, when a shutdown hook closes it. Exit codes: 2 for a usage or configuration error (the
 * message names the setting), 1 when the service failed to start, 0 after a clean stop.
 */
public final class ServiceMain {
  private static final Logger LOGGER = LoggerFactory.getLogger(ServiceMain.class);

  /** Names a properties file with settings under their environment-variable names. */
  public static final String CONFIG_FILE_VARIABLE = "PREFIXLOG_CONFIG_FILE";

  /** A configured service: started once, closed once by the shutdown hook or a failed start. */
  public interface Service {
    void start() throws IOException, InterruptedException;

    void close();
  }

  /** Builds the service from its settings; a bad setting is a {@link ConfigException}. */
  @FunctionalInterface
  public interface Factory {
    Service configure(Settings settings);
  }

  private ServiceMain() {}

  /**
   * Runs the service until the JVM is told to stop.
   *
   * @param mainClass the class name shown in the usage line
   * @param name the process name that prefixes configuration errors, e.g. {@code stream-app}
   */
  public static int run(
      String mainClass, String name, String[] args, Map<String, String> env, Factory factory) {
    return run(mainClass, name, args, env, List.of(), factory);
  }

  /**
   * Runs the service until the JVM is told to stop; {@code --help} prints the usage and the tables
   * of {@code settings} instead.
   *
   * @param settings the descriptor tables of what the service reads, for {@code --help}
   */
  public static int run(
      String mainClass,
      String name,
      String[] args,
      Map<String, String> env,
      List<ConfigDef> settings,
      Factory factory) {
    Service service;
    try {
      Map<String, String> environment = new HashMap<>(env);
      if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
        System.out.print(help(mainClass, settings));
        return 0;
      }
      if (args.length == 2 && args[0].equals("--config")) {
        environment.put(CONFIG_FILE_VARIABLE, args[1]);
      } else if (args.length != 0) {
        System.err.println(usage(mainClass));
        return 2;
      }
      service = factory.configure(Settings.fromEnvironment(environment, CONFIG_FILE_VARIABLE));
    } catch (ConfigException e) {
      System.err.println("prefixlog " + name + ": " + e.getMessage());
      return 2;
    }
    return runUntilStopped(name, service);
  }

  /** The usage line and each table of settings, as {@code --help} prints them. */
  public static String help(String mainClass, List<ConfigDef> settings) {
    StringBuilder out = new StringBuilder(usage(mainClass)).append("\n\n");
    out.append("Settings come from environment variables, or the same names in the properties")
        .append(" file that --config or ")
        .append(CONFIG_FILE_VARIABLE)
        .append(" names (the environment wins). Sizes take KiB/MiB/GiB; durations take")
        .append(" ms/s/m/h/d.\n");
    for (ConfigDef definition : settings) {
      out.append('\n').append(definition.helpText());
    }
    return out.toString();
  }

  private static String usage(String mainClass) {
    return "usage: " + mainClass + " [--config FILE | --help]";
  }

  private static int runUntilStopped(String name, Service service) {
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  service.close();
                  stopped.countDown();
                },
                "prefixlog-" + name + "-shutdown"));
    try {
      service.start();
      stopped.await();
      return 0;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    } catch (IOException | RuntimeException e) {
      LOGGER.atError().setMessage(name + " failed to start").setCause(e).log();
      service.close();
      return 1;
    }
  }
}
