package io.prefixlog.bridge.kv;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessagePack;

/** ZMQ messages as vLLM frames them, and small valid payloads, for the sequencer's tests. */
final class Frames {
  static final byte[] END_SEQ = {-1, -1, -1, -1, -1, -1, -1, -1};

  private Frames() {}

  static byte[] seq(long seq) {
    return ZmqReplayClient.bigEndian(seq);
  }

  /** A live message {@code [topic, seq, payload]}. */
  static List<byte[]> live(String topic, long seq, byte[] payload) {
    return List.of(topic.getBytes(StandardCharsets.UTF_8), seq(seq), payload);
  }

  /** A replay reply as a DEALER sees it from vLLM ≥ 0.26: {@code [b"", topic, seq, payload]}. */
  static List<byte[]> replyWithTopic(String topic, long seq, byte[] payload) {
    return List.of(new byte[0], topic.getBytes(StandardCharsets.UTF_8), seq(seq), payload);
  }

  /** A replay reply from vLLM before 0.26: {@code [b"", seq, payload]}. */
  static List<byte[]> replyWithoutTopic(long seq, byte[] payload) {
    return List.of(new byte[0], seq(seq), payload);
  }

  static List<byte[]> endWithTopic() {
    return List.of(new byte[0], new byte[0], END_SEQ, new byte[0]);
  }

  static List<byte[]> endWithoutTopic() {
    return List.of(new byte[0], END_SEQ, new byte[0]);
  }

  /**
   * A legacy positional batch {@code [ts, [["BlockStored", [hash], nil, tokens, 16, nil, "GPU"]],
   * 0]} whose one block hash is {@code hash}.
   */
  static byte[] storedBatch(long hash) {
    return storedBatch(hash, 1_749_633_401.5);
  }

  /** As {@link #storedBatch(long)}, made at engine time {@code ts} (Unix seconds). */
  static byte[] storedBatch(long hash, double ts) {
    try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
      p.packArrayHeader(3);
      p.packDouble(ts);
      p.packArrayHeader(1);
      p.packArrayHeader(7);
      p.packString("BlockStored");
      p.packArrayHeader(1);
      p.packLong(hash);
      p.packNil();
      p.packArrayHeader(16);
      for (int i = 0; i < 16; i++) {
        p.packInt(i);
      }
      p.packInt(16);
      p.packNil();
      p.packString("GPU");
      p.packInt(0);
      return p.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * {@code [ts, [{type: "BlockStored", block_hashes: [1, 2, …], token_ids: …, block_size: 16}]]}
   * with {@code hashes} one-byte hashes, and the token ids {@code 1000, 1001, …} ({@code tokens} of
   * them) or nil when {@code tokens} is negative.
   */
  static byte[] storedMapBatch(int hashes, int tokens) {
    try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
      p.packArrayHeader(2);
      p.packDouble(1_749_633_401.5);
      p.packArrayHeader(1);
      p.packMapHeader(4);
      p.packString("type");
      p.packString("BlockStored");
      p.packString("block_hashes");
      p.packArrayHeader(hashes);
      for (int i = 0; i < hashes; i++) {
        p.packInt(1 + i % 127);
      }
      p.packString("token_ids");
      if (tokens < 0) {
        p.packNil();
      } else {
        p.packArrayHeader(tokens);
        for (int i = 0; i < tokens; i++) {
          p.packInt(1000 + i);
        }
      }
      p.packString("block_size");
      p.packInt(16);
      return p.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A legacy positional batch {@code [ts, [["BlockStored", [1], nil, tokens, blockSize, nil,
   * "GPU"]], 0]}, its token ids {@code 0..15} or nil when {@code withTokens} is false.
   */
  static byte[] legacyStoredBatch(int blockSize, boolean withTokens) {
    try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
      p.packArrayHeader(3);
      p.packDouble(1.0);
      p.packArrayHeader(1);
      p.packArrayHeader(7);
      p.packString("BlockStored");
      p.packArrayHeader(1);
      p.packLong(1);
      p.packNil();
      if (withTokens) {
        p.packArrayHeader(16);
        for (int i = 0; i < 16; i++) {
          p.packInt(31_000 + i);
        }
      } else {
        p.packNil();
      }
      p.packInt(blockSize);
      p.packNil();
      p.packString("GPU");
      p.packInt(0);
      return p.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@code [ts, [], 0]}: a batch without events. */
  static byte[] emptyBatch() {
    try (MessageBufferPacker p = MessagePack.newDefaultBufferPacker()) {
      p.packArrayHeader(3);
      p.packDouble(1.0);
      p.packArrayHeader(0);
      p.packInt(0);
      return p.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static byte[] bytes(int... values) {
    byte[] out = new byte[values.length];
    for (int i = 0; i < values.length; i++) {
      out[i] = (byte) values[i];
    }
    return out;
  }

  static String hex(long hash) {
    return String.format("%016x", hash);
  }
}
