package io.prefixlog.tools.replay;

import io.prefixlog.cli.Outcome;
import java.util.Objects;

/**
 * What a replay ended with: done when every event was acknowledged (every request answered 2xx);
 * failed when a send failed, a captured turn failed its check, the run was interrupted, or Kafka or
 * the proxy could not be reached; usage when the corpus named has nothing to replay.
 */
public record ReplayResult(Outcome outcome) {
  public ReplayResult {
    Objects.requireNonNull(outcome, "outcome");
  }
}
