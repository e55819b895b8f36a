package io.prefixlog.tools.topic;

import io.prefixlog.cli.CommandLine;
import io.prefixlog.cli.Option;
import io.prefixlog.cli.UsageException;
import io.prefixlog.core.config.CommonKeys;
import io.prefixlog.schemas.Topics;

/**
 * The {@code --bootstrap} and {@code --topic-prefix} options of the commands that read or write
 * prefixlog's topics: one form and one default each, read the same way by every command.
 */
public final class TopicOptions {
  /** {@code --bootstrap HOST:PORT}, the Kafka bootstrap servers. */
  public static final Option BOOTSTRAP = bootstrap("Kafka bootstrap servers.");

  /** {@code --topic-prefix PREFIX}, the prefix of every topic name. */
  public static final Option TOPIC_PREFIX = topicPrefix("Prefix of every topic name.");

  private TopicOptions() {}

  /** {@code --bootstrap} with a help text that says what the command reads there. */
  public static Option bootstrap(String help) {
    return Option.value("bootstrap", "HOST:PORT", CommonKeys.DEFAULT_BOOTSTRAP, help);
  }

  /** {@code --topic-prefix} with a help text that names the topics the command reads. */
  public static Option topicPrefix(String help) {
    return Option.value("topic-prefix", "PREFIX", "\"" + Topics.DEFAULT_PREFIX + "\"", help);
  }

  /** The bootstrap servers given, else {@link CommonKeys#DEFAULT_BOOTSTRAP}. */
  public static String bootstrap(CommandLine line) throws UsageException {
    return line.hostPort("bootstrap", CommonKeys.DEFAULT_BOOTSTRAP);
  }

  /** The topic prefix given, else {@link Topics#DEFAULT_PREFIX}. */
  public static String topicPrefix(CommandLine line) {
    return line.string("topic-prefix", Topics.DEFAULT_PREFIX);
  }

  /** Whether either option was given: a command told to read files instead refuses them. */
  public static boolean given(CommandLine line) {
    return line.has("bootstrap") || line.has("topic-prefix");
  }
}
