package io.prefixlog.tools.reconstruct;

import java.nio.file.Path;
import java.util.Objects;

/**
 * What {@link ExportService} writes, from where: {@code prefixlog export}'s options for a trace,
 * typed.
 *
 * @param format the trace format
 * @param out the file written (replaced whole, never left half-written)
 * @param bootstrap Kafka bootstrap servers of the deltas topic
 * @param topicPrefix prefix of every topic name
 * @param file a dump of the deltas topic read instead of the topic, or {@code null}
 * @param blockBytes bytes of rendered prompt per Mooncake block hash
 * @param defaultOutputTokens the output length of a request whose answer reported none
 * @param progress whether to show progress bars even when stderr is not a terminal
 */
public record ExportRequest(
    ExportFormat format,
    Path out,
    String bootstrap,
    String topicPrefix,
    Path file,
    int blockBytes,
    long defaultOutputTokens,
    boolean progress) {
  public ExportRequest {
    Objects.requireNonNull(format, "format");
    Objects.requireNonNull(out, "out");
    Objects.requireNonNull(bootstrap, "bootstrap");
    Objects.requireNonNull(topicPrefix, "topicPrefix");
    if (blockBytes < 1) {
      throw new IllegalArgumentException("blockBytes must be at least 1, got " + blockBytes);
    }
    if (defaultOutputTokens < 1) {
      throw new IllegalArgumentException(
          "defaultOutputTokens must be at least 1, got " + defaultOutputTokens);
    }
  }
}
