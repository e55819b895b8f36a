package io.prefixlog.core.kv;

/**
 * What {@link KvBatchDecoder#decode} made of one payload: a {@link DecodedBatch} or a {@link
 * DecodeFailure}, never an exception.
 */
public sealed interface DecodeResult permits DecodedBatch, DecodeFailure {}
