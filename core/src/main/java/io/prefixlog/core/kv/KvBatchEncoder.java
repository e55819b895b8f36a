package io.prefixlog.core.kv;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.util.List;
import java.util.Objects;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

/**
 * Writes one vLLM {@code KVEventBatch} the way vLLM's msgspec encoder does ({@code array_like}):
 * {@code [ts, [event, ...], data_parallel_rank]}, each event a map, block hashes as uint64. The
 * inverse of {@link KvBatchDecoder} for the demo engine, the benchmarks and tests that play an
 * engine. Use: {@link #start}, exactly the announced number of {@link #blockStored}/{@link
 * #blockRemoved} calls, then {@link #finish}.
 */
public final class KvBatchEncoder {
  private final MessageBufferPacker packer = MessagePack.newDefaultBufferPacker();
  private int remaining;

  private KvBatchEncoder(int events) {
    this.remaining = events;
  }

  /**
   * Starts a batch of {@code events} events stamped {@code timestamp} (seconds since the epoch).
   */
  public static KvBatchEncoder start(double timestamp, int events) {
    if (events < 0) {
      throw new IllegalArgumentException("events must be >= 0, is " + events);
    }
    KvBatchEncoder encoder = new KvBatchEncoder(events);
    try {
      encoder.packer.packArrayHeader(3);
      encoder.packer.packDouble(timestamp);
      encoder.packer.packArrayHeader(events);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return encoder;
  }

  /**
   * A {@code BlockStored} event on medium {@code GPU} with no LoRA.
   *
   * @param parent the parent block's hash, or {@code null} for a first block
   * @param kvCacheSpecKind with vLLM's newer fields: {@code kv_cache_spec_kind} and one nil {@code
   *     extra_keys} entry per block; {@code null} leaves both out (older vLLM)
   */
  public KvBatchEncoder blockStored(
      List<Long> hashes,
      Long parent,
      int[] tokenIds,
      int blockSize,
      int groupIdx,
      String kvCacheSpecKind,
      String sessionId) {
    Objects.requireNonNull(hashes, "hashes");
    Objects.requireNonNull(tokenIds, "tokenIds");
    Objects.requireNonNull(sessionId, "sessionId");
    next();
    try {
      packer.packMapHeader(kvCacheSpecKind == null ? 10 : 12);
      packer.packString("type").packString("BlockStored");
      packer.packString("block_hashes").packArrayHeader(hashes.size());
      for (long hash : hashes) {
        packHash(hash);
      }
      packer.packString("parent_block_hash");
      if (parent == null) {
        packer.packNil();
      } else {
        packHash(parent);
      }
      packer.packString("token_ids").packArrayHeader(tokenIds.length);
      for (int token : tokenIds) {
        packer.packInt(token);
      }
      packer.packString("block_size").packInt(blockSize);
      packer.packString("lora_id").packNil();
      packer.packString("medium").packString("GPU");
      packer.packString("lora_name").packNil();
      packer.packString("group_idx").packInt(groupIdx);
      if (kvCacheSpecKind != null) {
        packer.packString("kv_cache_spec_kind").packString(kvCacheSpecKind);
        packer.packString("extra_keys").packArrayHeader(hashes.size());
        for (int i = 0; i < hashes.size(); i++) {
          packer.packNil();
        }
      }
      packer.packString("session_id").packString(sessionId);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return this;
  }

  /** A {@code BlockRemoved} event for one block on medium {@code GPU}. */
  public KvBatchEncoder blockRemoved(long hash, int groupIdx) {
    next();
    try {
      packer.packMapHeader(4);
      packer.packString("type").packString("BlockRemoved");
      packer.packString("block_hashes").packArrayHeader(1);
      packHash(hash);
      packer.packString("medium").packString("GPU");
      packer.packString("group_idx").packInt(groupIdx);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return this;
  }

  /** Ends the batch with its {@code data_parallel_rank} and returns its bytes. */
  public byte[] finish(int dataParallelRank) {
    if (remaining != 0) {
      throw new IllegalStateException(remaining + " announced events were not written");
    }
    try {
      packer.packInt(dataParallelRank);
      return packer.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      try {
        packer.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  private void next() {
    if (remaining == 0) {
      throw new IllegalStateException("more events than the batch announced");
    }
    remaining--;
  }

  /** vLLM's hashes are uint64: those above 2^63 go out as msgpack uint64, not as negative ints. */
  private void packHash(long hash) throws IOException {
    if (hash >= 0) {
      packer.packLong(hash);
    } else {
      packer.packBigInteger(new BigInteger(Long.toUnsignedString(hash)));
    }
  }
}
