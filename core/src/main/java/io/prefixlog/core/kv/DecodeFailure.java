package io.prefixlog.core.kv;

import java.util.Objects;

/**
 * Why a payload could not be decoded: a stable reason code (metrics and dead letters carry it) and
 * a detail that says where and what, never quoting a value.
 *
 * <p>Reasons: {@link #MALFORMED_MSGPACK} (not one complete msgpack value: truncated, a reserved
 * byte, a length beyond the payload, trailing bytes, nesting too deep), {@link #NOT_A_BATCH} (valid
 * msgpack whose outer shape is not an event batch), {@link #BAD_EVENT} (an event, or a field vLLM
 * defines, of the wrong shape or type), {@link #TOO_MANY_HASHES} (an event naming more blocks than
 * {@link KvDecodeLimits#maxHashesPerEvent()}), {@link #BATCH_TOO_LARGE} (a batch keeping more
 * values than {@link KvDecodeLimits#maxValuesPerBatch()}) and {@link #DECODER_ERROR} (an unexpected
 * exception inside the decoder: a bug, kept from escaping so that one payload never stops a
 * subscriber).
 *
 * @param reason one of the reason codes of this class
 * @param detail what exactly was wrong and where
 */
public record DecodeFailure(String reason, String detail) implements DecodeResult {
  public static final String MALFORMED_MSGPACK = "malformed_msgpack";
  public static final String NOT_A_BATCH = "not_a_batch";
  public static final String BAD_EVENT = "bad_event";
  public static final String TOO_MANY_HASHES = "too_many_hashes";
  public static final String BATCH_TOO_LARGE = "batch_too_large";
  public static final String DECODER_ERROR = "decoder_error";

  public DecodeFailure {
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(detail, "detail");
  }
}
