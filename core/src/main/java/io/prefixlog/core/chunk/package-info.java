/**
 * Chunk-hash lookup records: a request's prompt rendered without a tokenizer, cut into fixed-size
 * byte chunks, hashed with a prefix chain ({@link io.prefixlog.core.chunk.ChunkLookups}).
 *
 * <h2>What is chunked ({@code chunked})</h2>
 *
 * <ul>
 *   <li>{@code chat_messages}, a body whose {@code messages} is an array: the tool definitions,
 *       then every message, in the spirit of a chat template:
 *       <pre>
 * &lt;|tools|&gt;\n                        only when "tools" is a non-empty array
 * {tool as compact JSON}\n              each tool, in order
 * &lt;|end|&gt;\n
 * &lt;|{role}|&gt;[ name={name}][ tool_call_id={id}]\n   each message, in order
 * {content}
 * {&lt;|tool_call|&gt;{call as compact JSON}\n}          each entry of tool_calls
 * &lt;|end|&gt;\n
 * </pre>
 *       Content: a string as it is; a content array as its parts joined by {@code \n} (as vLLM
 *       joins them before the template), a text part as its text, any other part (image, audio,
 *       file) as {@code <|part:{type}:{16 hex digits of the SHA-256 of its compact JSON}|>}, so
 *       equal parts render equal and a megabyte of base64 costs a few bytes, as the engine's
 *       placeholder tokens do; null or absent as nothing; anything else as compact JSON. Other
 *       message fields ({@code reasoning_content}, {@code function_call}, …) and other body fields
 *       ({@code tool_choice}, {@code response_format}, …) are not rendered.
 *   <li>{@code completion_prompt}, a body with a {@code prompt} (and no {@code messages}): the
 *       string; a list of strings concatenated in order (a batch is several engine requests but one
 *       record, so only the first prompt's chunks are what the engine looks up); token ids as
 *       decimal numbers, each followed by a space.
 *   <li>{@code raw_body}, everything else: not JSON, not strict UTF-8, not an object, neither
 *       field, or a shape no engine accepts (a message that is not an object or has no string role,
 *       {@code tools} that is not a list); the body bytes as they arrived.
 * </ul>
 *
 * <p>Compact JSON: no whitespace; keys in the request's order (as a template's {@code tojson} keeps
 * them); numbers and literals as written; strings with the quote, the backslash and control
 * characters escaped and everything else as UTF-8. So the client's whitespace and escaping choices
 * (an escaped or a literal é) do not change the rendering; a non-canonical number ({@code 1.50})
 * stays as written where Python would print {@code 1.5}. Strings are decoded as JSON defines them;
 * an escaped unpaired surrogate, which has no UTF-8 form, becomes {@code ?}. Duplicate keys: the
 * last one wins, as in any JSON parser (inside a compact JSON value they are kept as written).
 *
 * <p>Prefix stability: a message renders the same wherever it stands and nothing follows the last
 * one (no generation prompt), so when a turn appends messages to the previous turn's, its rendering
 * starts with the previous rendering byte for byte; an edit inside a message (a timestamp in the
 * system prompt) changes the rendering from that byte on. Changing the tool definitions changes
 * everything, as it does in the engine, where they come first.
 *
 * <h2>Limits</h2>
 *
 * <ul>
 *   <li>No real chat template: the markers are prefixlog's, not the model's. Absolute lengths
 *       differ from the engine's prompt by the markers' sizes, and templates that rewrite history
 *       (dropping earlier reasoning, moving the system prompt, merging tool definitions into it)
 *       are not followed.
 *   <li>No special tokens, no generation prompt, no multimodal token counts.
 *   <li>Units are bytes of the rendering, not tokens ({@code chunk_unit: "bytes"}): a chunk of 256
 *       bytes is about 64 tokens of English or JSON and fewer of other scripts, and chunk
 *       boundaries do not fall where the engine's block boundaries do. Hit rates computed from
 *       these records are byte-weighted and model the shape of prefix reuse, not exact token
 *       counts; the engine's own {@code prompt_tokens}/{@code cached_tokens} ride along for
 *       comparison.
 *   <li>Hashes ({@code sha256_chain_64}, see {@link io.prefixlog.core.chunk.ChunkHasher}) are
 *       prefixlog's own: they never equal vLLM block hashes or LMCache chunk hashes. A change to
 *       the rendering must come with a new {@code hash_algo} name, so that analyses never mix
 *       hashes of two renderings.
 *   <li>A truncated capture is chunked as the bytes captured (as {@code raw_body}, since the cut
 *       JSON no longer parses).
 * </ul>
 *
 * <p>Cost: one validating pass over the body ({@code JsonCursor}, eight bytes at a time between
 * escapes) and one SHA-256 per chunk; no JSON tree, no strings.
 */
package io.prefixlog.core.chunk;
