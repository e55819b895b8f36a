package io.prefixlog.tools.reconstruct;

import com.fasterxml.jackson.core.JsonGenerator;
import io.prefixlog.core.chunk.ChunkHasher;
import io.prefixlog.core.chunk.PromptRenderer;
import io.prefixlog.core.chunk.RenderedPrompt;
import io.prefixlog.core.rebuild.RebuildListener;
import io.prefixlog.schemas.delta.DeltaRecord;
import io.prefixlog.schemas.json.Json;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Collects the verified turns of a rebuild and writes them as a replayable trace: Mooncake's trace
 * JSONL or {@code vllm bench serve}'s custom dataset. Only turns whose body was rebuilt and checked
 * reach it ({@link RebuildListener#onVerifiedTurn}): an erased turn (a tombstone newer than its
 * record) is never rebuilt, so nothing of it is exported.
 *
 * <p>Each turn's prompt is its body rendered by {@link PromptRenderer}, the text prefixlog's chunk
 * hashes are computed over (roles, contents and tool definitions of a chat request; the prompt of a
 * completion request). A body that is neither is skipped and counted: it has no prompt to replay.
 */
final class TraceExport implements RebuildListener {
  /** Bytes per token assumed where the engine reported no prompt tokens. */
  static final int BYTES_PER_TOKEN_ESTIMATE = 4;

  /** One verified turn, reduced to what the format needs. */
  private record Turn(
      long tsMs, long order, long inputLength, long outputLength, long[] blocks, String prompt) {}

  private final ExportFormat format;
  private final ChunkHasher hasher;
  private final long defaultOutputTokens;
  private final List<Turn> turns = new ArrayList<>();
  private long notPrompts;
  private long estimatedInputs;
  private long defaultedOutputs;

  /**
   * @param blockBytes bytes of the rendered prompt per Mooncake block
   * @param defaultOutputTokens the output length of a turn whose response usage was not captured
   */
  TraceExport(ExportFormat format, int blockBytes, long defaultOutputTokens) {
    this.format = format;
    this.hasher = new ChunkHasher(blockBytes);
    this.defaultOutputTokens = defaultOutputTokens;
  }

  @Override
  public void onVerifiedTurn(String sessionKey, long seq, DeltaRecord record, byte[] body) {
    RenderedPrompt rendered = PromptRenderer.render(body);
    if (rendered.kind() == RenderedPrompt.Kind.RAW_BODY || record.ts() == null) {
      notPrompts++;
      return;
    }
    byte[] text = rendered.bytes();
    long input;
    if (record.promptTokens() != null) {
      input = record.promptTokens();
    } else {
      estimatedInputs++;
      input = (text.length + BYTES_PER_TOKEN_ESTIMATE - 1) / BYTES_PER_TOKEN_ESTIMATE;
    }
    Long completion =
        record.response() == null || record.response().usage() == null
            ? null
            : record.response().usage().completionTokens();
    long output;
    if (completion != null) {
      output = completion;
    } else {
      defaultedOutputs++;
      output = defaultOutputTokens;
    }
    turns.add(
        new Turn(
            record.ts(),
            turns.size(),
            input,
            output,
            format == ExportFormat.MOONCAKE ? blocks(text) : null,
            format == ExportFormat.VLLM_CUSTOM ? new String(text, StandardCharsets.UTF_8) : null));
  }

  /**
   * The prefix-chained hashes of the full blocks, then one for the partial last block: the chain's
   * last hash folded with the tail's bytes (FNV-1a), so it equals another request's only when the
   * whole rendered prompt does (up to 64-bit collisions).
   */
  private long[] blocks(byte[] text) {
    long[] full = hasher.hash(text);
    int tail = text.length - full.length * hasher.chunkSize();
    if (tail == 0) {
      return full;
    }
    long h = full.length == 0 ? 0xcbf29ce484222325L : full[full.length - 1];
    for (int i = text.length - tail; i < text.length; i++) {
      h = (h ^ (text[i] & 0xff)) * 0x100000001b3L;
    }
    long[] all = java.util.Arrays.copyOf(full, full.length + 1);
    all[full.length] = h;
    return all;
  }

  long exported() {
    return turns.size();
  }

  long notPrompts() {
    return notPrompts;
  }

  long estimatedInputs() {
    return estimatedInputs;
  }

  long defaultedOutputs() {
    return defaultedOutputs;
  }

  /**
   * Writes the turns in arrival order ({@code ts}; ties keep rebuild order), one JSON object per
   * line.
   *
   * @return distinct block ids written (Mooncake), else 0
   */
  long write(OutputStream out) throws IOException {
    List<Turn> ordered = new ArrayList<>(turns);
    ordered.sort(Comparator.comparingLong(Turn::tsMs).thenComparingLong(Turn::order));
    Map<Long, Integer> ids = new HashMap<>();
    long first = ordered.isEmpty() ? 0 : ordered.get(0).tsMs();
    try (JsonGenerator json = Json.mapper().getFactory().createGenerator(out)) {
      json.setRootValueSeparator(null);
      for (Turn turn : ordered) {
        json.writeStartObject();
        if (format == ExportFormat.MOONCAKE) {
          json.writeNumberField("timestamp", turn.tsMs() - first);
          json.writeNumberField("input_length", turn.inputLength());
          json.writeNumberField("output_length", turn.outputLength());
          json.writeArrayFieldStart("hash_ids");
          for (long block : turn.blocks()) {
            json.writeNumber(ids.computeIfAbsent(block, b -> ids.size()));
          }
          json.writeEndArray();
        } else {
          json.writeStringField("prompt", turn.prompt());
          json.writeNumberField("output_tokens", turn.outputLength());
        }
        json.writeEndObject();
        json.writeRaw('\n');
      }
    }
    return ids.size();
  }
}
