package io.prefixlog.core.rebuild;

import io.prefixlog.schemas.delta.DeltaRecord;

/** Receives the rebuild's results as they are produced, session by session. */
public interface RebuildListener {

  /** A listener that ignores everything (the report still says what was found). */
  RebuildListener NONE = new RebuildListener() {};

  /**
   * A body that was rebuilt and matched its record's {@code body_len} and {@code body_sha256}. When
   * one turn was asked for, only that turn's body is passed (not the bases on its chain).
   *
   * @param body the exact bytes; the rebuilder may still use them as a base, so do not modify them
   */
  default void onVerifiedBody(String sessionKey, long seq, byte[] body) {}

  /**
   * The same verified body as {@link #onVerifiedBody}, with the record it was rebuilt from (its
   * time, model and the engine's usage), for readers that export turns rather than check them.
   * Called right after {@link #onVerifiedBody}.
   */
  default void onVerifiedTurn(String sessionKey, long seq, DeltaRecord record, byte[] body) {}

  /** A turn was examined, whatever the outcome (for progress). */
  default void onTurnChecked(String sessionKey, long seq, boolean ok) {}

  /** A session is done; its bodies are no longer held. */
  default void onSessionDone(SessionReport report) {}
}
