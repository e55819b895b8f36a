package io.prefixlog.benchmarks.delta;

import io.prefixlog.core.delta.BaseBodies;
import io.prefixlog.core.delta.EncodedTurn;
import io.prefixlog.core.delta.SessionState;
import io.prefixlog.core.delta.TurnEncoder;

/**
 * The encoder under test: {@link TurnEncoder#encode}'s shape, so that a variant of the encoder can
 * be measured with the same harness.
 */
@FunctionalInterface
interface SessionEncoder {
  EncodedTurn encode(SessionState state, byte[] body, boolean utf8, BaseBodies bodies, long nowMs);
}
