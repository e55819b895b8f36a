package io.prefixlog.benchmarks.agent;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import io.prefixlog.tools.corpus.AgentSessions;
import java.io.ByteArrayOutputStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The references the deltas are measured against, per conversation (never per derived key: they
 * know which conversation a request belongs to, as no capture does):
 *
 * <ul>
 *   <li>{@code zstd -3 --patch-from}: each body compressed at level 3 with the previous body of its
 *       conversation as a raw-content dictionary, as the CLI's {@code --patch-from} does; the first
 *       body plain {@code zstd -3}. The frame keeps the content size, no checksum.
 *   <li>{@code zstd -19 --long}: each conversation's bodies concatenated and compressed whole at
 *       level 19 with a 128 MiB long-distance window: what one pass over a finished session can
 *       reach, with every earlier turn in view.
 * </ul>
 */
final class References {
  /**
   * @param patchFrom bytes of every turn's patch-from frame, summed
   * @param wholeSession bytes of every conversation's zstd -19 --long frame, summed
   */
  record Sizes(long patchFrom, long wholeSession) {}

  private References() {}

  static Sizes of(List<AgentSessions.AgentRequest> requests) {
    Map<String, byte[]> previous = new LinkedHashMap<>();
    Map<String, ByteArrayOutputStream> sessions = new LinkedHashMap<>();
    long patchFrom = 0;
    byte[] out = new byte[0];
    try (ZstdCompressCtx plain = level(3);
        ZstdCompressCtx withReference = level(3)) {
      for (AgentSessions.AgentRequest request : requests) {
        byte[] body = request.body();
        int bound = Math.toIntExact(Zstd.compressBound(body.length));
        if (out.length < bound) {
          out = new byte[bound];
        }
        byte[] reference = previous.put(request.conversationId(), body);
        if (reference == null) {
          patchFrom += plain.compressByteArray(out, 0, out.length, body, 0, body.length);
        } else {
          withReference.loadDict(reference);
          patchFrom += withReference.compressByteArray(out, 0, out.length, body, 0, body.length);
        }
        sessions
            .computeIfAbsent(request.conversationId(), k -> new ByteArrayOutputStream())
            .writeBytes(body);
      }
    }
    long whole = 0;
    try (ZstdCompressCtx ctx = level(19).setLong(27)) {
      for (ByteArrayOutputStream session : sessions.values()) {
        whole += ctx.compress(session.toByteArray()).length;
      }
    }
    return new Sizes(patchFrom, whole);
  }

  private static ZstdCompressCtx level(int level) {
    return new ZstdCompressCtx().setLevel(level).setContentSize(true).setChecksum(false);
  }
}
