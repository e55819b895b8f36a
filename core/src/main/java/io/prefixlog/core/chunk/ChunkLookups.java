package io.prefixlog.core.chunk;

import io.prefixlog.core.request.ValidatedRequest;
import io.prefixlog.schemas.lookup.ChunkLookupRecord;
import io.prefixlog.schemas.request.RawRequestEvent;
import io.prefixlog.schemas.request.ResponseInfo;
import io.prefixlog.schemas.request.Usage;
import java.util.Objects;

/**
 * Builds the chunk-hash lookup record of one request: render its body ({@link PromptRenderer}),
 * hash the full chunks of the rendering ({@link ChunkHasher}), and copy the request's identity and
 * the engine's token counts.
 *
 * <p>The LMCache fields keep LMCache's meaning, in prefixlog's unit: {@code timestamp} is the
 * event's {@code ts} in Unix seconds, {@code model_name} the event's {@code model}, {@code
 * chunk_size} and {@code seq_len} count bytes of the rendered prompt ({@code chunk_unit} {@value
 * #CHUNK_UNIT}), {@code seq_len} includes the tail that does not fill a chunk.
 *
 * <p>Immutable and thread-safe.
 */
public final class ChunkLookups {
  /** The {@code chunk_unit} of every record built here. */
  public static final String CHUNK_UNIT = "bytes";

  private final ChunkHasher hasher;

  /**
   * @param chunkSizeBytes bytes of the rendered prompt per chunk, at least 1
   */
  public ChunkLookups(int chunkSizeBytes) {
    this.hasher = new ChunkHasher(chunkSizeBytes);
  }

  public int chunkSize() {
    return hasher.chunkSize();
  }

  /** The record of a validated request; a body that is not UTF-8 is chunked as it is. */
  public ChunkLookupRecord of(ValidatedRequest request) {
    Objects.requireNonNull(request, "request");
    RenderedPrompt prompt =
        request.utf8() ? PromptRenderer.render(request.body()) : PromptRenderer.raw(request.body());
    return of(request.event(), prompt);
  }

  /**
   * The record of a raw event whose body bytes were decoded by the caller.
   *
   * @param event needs {@code request_id}, {@code ts} and {@code session_key}
   * @param body the event's body bytes (decoded from {@code body_encoding})
   */
  public ChunkLookupRecord of(RawRequestEvent event, byte[] body) {
    return of(event, PromptRenderer.render(Objects.requireNonNull(body, "body")));
  }

  /** The record of a raw event whose body is already rendered. */
  public ChunkLookupRecord of(RawRequestEvent event, RenderedPrompt prompt) {
    Objects.requireNonNull(event, "event");
    Objects.requireNonNull(prompt, "prompt");
    Objects.requireNonNull(event.requestId(), "event.requestId");
    Objects.requireNonNull(event.ts(), "event.ts");
    Objects.requireNonNull(event.sessionKey(), "event.sessionKey");
    Long promptTokens = null;
    Long cachedTokens = null;
    ResponseInfo response = event.response();
    if (response != null && response.usage() != null) {
      Usage usage = response.usage();
      promptTokens = usage.promptTokens();
      cachedTokens = usage.cachedTokens();
      // vLLM omits cached_tokens when it is zero; with prompt tokens known, absent means zero
      // (the same rule as the delta records).
      if (cachedTokens == null && promptTokens != null) {
        cachedTokens = 0L;
      }
    }
    return new ChunkLookupRecord(
        event.ts() / 1000.0,
        event.requestId(),
        event.model(),
        hasher.chunkSize(),
        (long) prompt.length(),
        ChunkHasher.hex(hasher.hash(prompt.bytes())),
        event.sessionKey(),
        ChunkHasher.ALGORITHM,
        CHUNK_UNIT,
        prompt.kind().wireName(),
        promptTokens,
        cachedTokens);
  }
}
