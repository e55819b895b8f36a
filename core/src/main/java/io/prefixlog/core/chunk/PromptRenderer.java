package io.prefixlog.core.chunk;

import io.prefixlog.core.chunk.JsonCursor.Malformed;
import io.prefixlog.core.chunk.RenderedPrompt.Kind;
import io.prefixlog.core.text.Sha256;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * Turns a request body into the text the engine's prompt is made from, as closely as can be known
 * without the model's chat template and tokenizer. The rendering is specified in this package's
 * {@code package-info}; in short:
 *
 * <pre>
 * chat:       [&lt;|tools|&gt;\n {tool JSON \n} &lt;|end|&gt;\n]
 *             { &lt;|role|&gt;[ name=…][ tool_call_id=…]\n content {&lt;|tool_call|&gt;JSON\n} &lt;|end|&gt;\n }
 * completion: the prompt string (a list: its strings in order; token ids as "id " each)
 * otherwise:  the body bytes as they are
 * </pre>
 *
 * <p>A message renders the same wherever it stands and nothing is written after the last one, so
 * the rendering of a conversation is a byte prefix of the rendering of any conversation that
 * appends messages to it, and an edit inside one message changes the rendering from that point on.
 *
 * <p>One validating pass over the body's bytes ({@link JsonCursor}): strings are unescaped straight
 * into the rendering, eight bytes at a time between escapes. Duplicate keys resolve as in a tree
 * parse: the last one wins.
 *
 * <p>Stateless and thread-safe. Never throws on content: a body it does not understand is returned
 * as {@link Kind#RAW_BODY}.
 */
public final class PromptRenderer {
  private static final byte[] TOOLS_START = ascii("<|tools|>\n");
  private static final byte[] END = ascii("<|end|>\n");
  private static final byte[] TOOL_CALL = ascii("<|tool_call|>");
  private static final byte[] PART = ascii("<|part:");
  private static final byte[] NAME = ascii(" name=");
  private static final byte[] TOOL_CALL_ID = ascii(" tool_call_id=");
  private static final byte[] JSON_PART = ascii("json");
  private static final HexFormat HEX = HexFormat.of();

  private PromptRenderer() {}

  /**
   * Renders a request body: a chat request ({@code messages} is an array) as its tool definitions
   * and messages, a completion request ({@code prompt}) as its prompt, anything else (not JSON, not
   * UTF-8, not an object, neither field, a shape no engine accepts) as the body itself.
   */
  public static RenderedPrompt render(byte[] body) {
    Objects.requireNonNull(body, "body");
    RenderedPrompt rendered;
    try {
      rendered = new Pass(body).run();
    } catch (Malformed e) {
      // Not JSON, not UTF-8, or cut off: the engine would reject it, but its bytes still count.
      return raw(body);
    }
    return rendered == null ? raw(body) : rendered;
  }

  /**
   * A rendering, and where the next body of the same conversation can take the pass up again.
   *
   * @param resume the points after each message of the body's {@code messages}, or null when it has
   *     none
   * @param resumedAt the body offset this pass started from: 0, or the point of {@code previous} it
   *     took up
   */
  public record Resumable(RenderedPrompt prompt, Resume resume, int resumedAt) {}

  /**
   * {@link #render}, taken up after the last message that this body shares byte for byte with the
   * body {@code previous} was made from, instead of from the start. A conversation's next request
   * repeats the one before up to where it adds to it, so its rendering costs what it adds. The
   * result is exactly {@link #render}'s: the pass over a body's first bytes depends on nothing
   * after them, and it is those bytes' pass whose state is taken up.
   *
   * @param previous what the rendering of an earlier body left, or null
   */
  public static Resumable render(byte[] body, Resume previous) {
    Objects.requireNonNull(body, "body");
    Pass pass = new Pass(body);
    int point = previous == null ? -1 : previous.lastPointWithin(body);
    RenderedPrompt rendered;
    try {
      rendered = point < 0 ? pass.run() : pass.runFrom(previous, point);
    } catch (Malformed e) {
      return new Resumable(raw(body), null, 0);
    }
    int resumedAt = point < 0 ? 0 : previous.positions[point];
    return new Resumable(rendered == null ? raw(body) : rendered, pass.leftForNext(), resumedAt);
  }

  /**
   * The state of a rendering pass after each message of a body's {@code messages} (the first such
   * key's): where the message ends in the body, and what had been written by then. Holds the body
   * and the pass's output buffer, which must not change. The scalar state is what it was when the
   * array began: nothing else changes inside it.
   */
  public static final class Resume {
    private final byte[] body;
    private final byte[] out;
    private final int[] positions;
    private final int[] outSizes;
    private final int points;
    private final int depth;
    private final int toolsStart;
    private final int toolsEnd;
    private final int promptStart;
    private final int promptEnd;
    private final int messagesStart;

    private Resume(Pass pass) {
      this.body = pass.json.bytes();
      this.out = pass.out.buffer();
      this.positions = pass.positions;
      this.outSizes = pass.outSizes;
      this.points = pass.points;
      this.depth = pass.pointDepth;
      this.toolsStart = pass.pointToolsStart;
      this.toolsEnd = pass.pointToolsEnd;
      this.promptStart = pass.pointPromptStart;
      this.promptEnd = pass.pointPromptEnd;
      this.messagesStart = pass.pointMessagesStart;
    }

    /** Heap held, for bounded caches: the body and the output buffer, counted whole. */
    public long heapBytes() {
      return 96L + body.length + out.length + 8L * positions.length;
    }

    /**
     * The state at every point, as text: equal for the passes that would resume alike (and never
     * the body's content).
     */
    String points() {
      StringBuilder text =
          new StringBuilder()
              .append(depth)
              .append(' ')
              .append(toolsStart)
              .append('-')
              .append(toolsEnd)
              .append(' ')
              .append(promptStart)
              .append('-')
              .append(promptEnd)
              .append(' ')
              .append(messagesStart);
      for (int i = 0; i < points; i++) {
        text.append(' ').append(positions[i]).append(':').append(outSizes[i]);
      }
      return text.toString();
    }

    /** The last point at which {@code next} still has this body's bytes, or -1. */
    private int lastPointWithin(byte[] next) {
      int shared = Arrays.mismatch(body, next);
      if (shared < 0) {
        shared = body.length;
      }
      int found = Arrays.binarySearch(positions, 0, points, shared);
      return found >= 0 ? found : -found - 2;
    }
  }

  /** The body itself, unrendered (for bodies known not to be UTF-8 JSON). */
  public static RenderedPrompt raw(byte[] body) {
    return new RenderedPrompt(Kind.RAW_BODY, Objects.requireNonNull(body, "body"));
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  private static boolean is(ByteSink key, byte[] name) {
    return key.contentEquals(name);
  }

  /** One rendering: the cursor over the body, the sections rendered so far. */
  private static final class Pass {
    private static final byte[] MESSAGES = ascii("messages");
    private static final byte[] TOOLS = ascii("tools");
    private static final byte[] PROMPT = ascii("prompt");
    private static final byte[] ROLE = ascii("role");
    private static final byte[] NAME_KEY = ascii("name");
    private static final byte[] TOOL_CALL_ID_KEY = ascii("tool_call_id");
    private static final byte[] CONTENT = ascii("content");
    private static final byte[] TOOL_CALLS = ascii("tool_calls");
    private static final byte[] TYPE = ascii("type");
    private static final byte[] TEXT = ascii("text");

    private static final int ABSENT = -1;
    private static final int INVALID = -2;

    private final JsonCursor json;

    /** The sections (tools, messages, prompt), each a range; a duplicate key adds a new range. */
    private final ByteSink out;

    /**
     * One message's fields before they are copied into {@link #out} in the template's order. Sized
     * for an agent's large messages (tool results of tens of KB) up front: grown by doubling, it
     * was copied over and over on every body.
     */
    private final ByteSink scratch;

    private final ByteSink key = new ByteSink(64);

    private int toolsStart = ABSENT;
    private int toolsEnd;
    private int messagesStart = ABSENT;
    private int messagesEnd;
    private int promptStart = ABSENT;
    private int promptEnd;

    /**
     * The resume points ({@link Resume}): recorded in the first {@code messages} array only, with
     * the scalar state as it was when that array began.
     */
    private boolean recordPoints;

    private boolean pointsTaken;
    private int[] positions = new int[0];
    private int[] outSizes = new int[0];
    private int points;
    private int pointDepth;
    private int pointToolsStart;
    private int pointToolsEnd;
    private int pointPromptStart;
    private int pointPromptEnd;
    private int pointMessagesStart;

    Pass(byte[] body) {
      this.json = new JsonCursor(body);
      this.out = new ByteSink(body.length + 64);
      this.scratch = new ByteSink(Math.min(body.length + 64, 64 << 10));
    }

    /** The rendering, or null when the body is JSON but not a chat or completion request. */
    RenderedPrompt run() throws Malformed {
      if (json.peek() != '{') {
        return null;
      }
      json.enter((byte) '{');
      return members(true);
    }

    /**
     * {@link #run} from point {@code point} of {@code from}, whose body has the same bytes as this
     * one up to there: the state at that point restored, the rest of the messages read, then the
     * rest of the request's members.
     */
    RenderedPrompt runFrom(Resume from, int point) throws Malformed {
      json.resumeAt(from.positions[point], from.depth);
      out.write(from.out, 0, from.outSizes[point]);
      toolsStart = from.toolsStart;
      toolsEnd = from.toolsEnd;
      promptStart = from.promptStart;
      promptEnd = from.promptEnd;
      recordPoints = true;
      pointsTaken = true;
      positions = Arrays.copyOf(from.positions, Math.max(16, point + 1 + 16));
      outSizes = Arrays.copyOf(from.outSizes, positions.length);
      points = point + 1;
      pointDepth = from.depth;
      pointToolsStart = from.toolsStart;
      pointToolsEnd = from.toolsEnd;
      pointPromptStart = from.promptStart;
      pointPromptEnd = from.promptEnd;
      pointMessagesStart = from.messagesStart;
      // At least one message was read there: the array's next member follows a comma.
      messageElements(from.messagesStart, false);
      // And the messages were a member of the request: its next member follows a comma too.
      return members(false);
    }

    /** What the pass leaves for the next body of the conversation, or null. */
    Resume leftForNext() {
      return points == 0 ? null : new Resume(this);
    }

    /** The request object's members from the next one on, then the rendering. */
    private RenderedPrompt members(boolean firstMember) throws Malformed {
      for (boolean first = firstMember; json.more((byte) '}', first); first = false) {
        json.key(key);
        if (is(key, MESSAGES)) {
          messages();
        } else if (is(key, TOOLS)) {
          tools();
        } else if (is(key, PROMPT)) {
          prompt();
        } else {
          json.skip();
        }
      }
      if (!json.atEnd()) {
        throw Malformed.INSTANCE;
      }
      if (messagesStart != ABSENT) {
        if (messagesStart == INVALID || toolsStart == INVALID) {
          return null;
        }
        byte[] bytes =
            toolsStart == ABSENT
                ? out.concat(messagesStart, messagesEnd, 0, 0)
                : out.concat(toolsStart, toolsEnd, messagesStart, messagesEnd);
        return new RenderedPrompt(Kind.CHAT_MESSAGES, bytes);
      }
      if (promptStart >= 0) {
        return new RenderedPrompt(Kind.COMPLETION_PROMPT, out.concat(promptStart, promptEnd, 0, 0));
      }
      return null;
    }

    /** True (and consumed) when the next value is {@code null}. */
    private boolean nullValue() throws Malformed {
      if (json.peek() != 'n') {
        return false;
      }
      json.skip();
      return true;
    }

    private void messages() throws Malformed {
      if (nullValue()) {
        messagesStart = ABSENT;
        return;
      }
      if (json.peek() != '[') {
        messagesStart = INVALID;
        json.skip();
        return;
      }
      int start = out.size();
      json.enter((byte) '[');
      if (!pointsTaken) {
        // The first messages array of the body: its points are the ones a later body resumes at.
        pointsTaken = true;
        recordPoints = true;
        pointDepth = json.depth();
        pointToolsStart = toolsStart;
        pointToolsEnd = toolsEnd;
        pointPromptStart = promptStart;
        pointPromptEnd = promptEnd;
        pointMessagesStart = start;
      }
      messageElements(start, true);
    }

    /** The messages from the next one on, the array's close included. */
    private void messageElements(int start, boolean firstElement) throws Malformed {
      boolean ok = true;
      for (boolean first = firstElement; json.more((byte) ']', first); first = false) {
        if (ok) {
          ok = message();
          if (ok && recordPoints) {
            point();
          }
        } else {
          json.skip();
        }
      }
      recordPoints = false;
      messagesStart = ok ? start : INVALID;
      messagesEnd = out.size();
    }

    /** Records the state after a message that rendered. */
    private void point() {
      if (points == positions.length) {
        positions = Arrays.copyOf(positions, Math.max(16, points * 2));
        outSizes = Arrays.copyOf(outSizes, positions.length);
      }
      positions[points] = json.position();
      outSizes[points] = out.size();
      points++;
    }

    /** Renders one message into {@link #out}; false (having consumed it) if it has no role. */
    private boolean message() throws Malformed {
      if (json.peek() != '{') {
        json.skip();
        return false;
      }
      scratch.reset();
      // Fields come in any order: each is rendered into scratch, then copied out in the
      // template's order. Start offsets are ABSENT when the field is missing or not a string.
      int role = ABSENT;
      int roleEnd = 0;
      int name = ABSENT;
      int nameEnd = 0;
      int callId = ABSENT;
      int callIdEnd = 0;
      int content = ABSENT;
      int contentEnd = 0;
      int calls = ABSENT;
      int callsEnd = 0;
      json.enter((byte) '{');
      for (boolean first = true; json.more((byte) '}', first); first = false) {
        json.key(key);
        int start = scratch.size();
        if (is(key, ROLE)) {
          role = stringOrAbsent(start);
          roleEnd = scratch.size();
        } else if (is(key, CONTENT)) {
          content();
          content = start;
          contentEnd = scratch.size();
        } else if (is(key, NAME_KEY)) {
          name = stringOrAbsent(start);
          nameEnd = scratch.size();
        } else if (is(key, TOOL_CALL_ID_KEY)) {
          callId = stringOrAbsent(start);
          callIdEnd = scratch.size();
        } else if (is(key, TOOL_CALLS)) {
          toolCalls();
          calls = start;
          callsEnd = scratch.size();
        } else {
          json.skip();
        }
      }
      if (role == ABSENT) {
        return false;
      }
      out.write('<');
      out.write('|');
      out.copy(scratch, role, roleEnd);
      out.write('|');
      out.write('>');
      if (name != ABSENT) {
        out.write(NAME);
        out.copy(scratch, name, nameEnd);
      }
      if (callId != ABSENT) {
        out.write(TOOL_CALL_ID);
        out.copy(scratch, callId, callIdEnd);
      }
      out.write('\n');
      if (content != ABSENT) {
        out.copy(scratch, content, contentEnd);
      }
      if (calls != ABSENT) {
        out.copy(scratch, calls, callsEnd);
      }
      out.write(END);
      return true;
    }

    private int stringOrAbsent(int start) throws Malformed {
      if (json.peek() != '"') {
        json.skip();
        return ABSENT;
      }
      json.string(scratch);
      return start;
    }

    private void content() throws Malformed {
      byte next = json.peek();
      if (next == '"') {
        json.string(scratch);
      } else if (next == '[') {
        parts();
      } else if (!nullValue()) {
        json.compact(scratch);
      }
    }

    /** A content array: its parts joined by "\n", as vLLM joins them before the template. */
    private void parts() throws Malformed {
      json.enter((byte) '[');
      for (boolean first = true; json.more((byte) ']', first); first = false) {
        if (!first) {
          scratch.write('\n');
        }
        if (json.peek() == '"') {
          json.string(scratch);
        } else {
          part();
        }
      }
    }

    /**
     * A text part as its text; any other part (image, audio, file) as a short stand-in that is
     * equal for equal parts and differs otherwise, as the engine's placeholder tokens and data hash
     * are.
     */
    private void part() throws Malformed {
      int mark = json.mark();
      ByteSink compact = new ByteSink(256);
      json.compact(compact);
      int end = json.mark();
      // Read the part again for its type and text (the last of each wins, as in a tree).
      ByteSink type = null;
      ByteSink text = null;
      json.rewind(mark);
      if (json.peek() == '{') {
        json.enter((byte) '{');
        for (boolean first = true; json.more((byte) '}', first); first = false) {
          json.key(key);
          boolean isType = is(key, TYPE);
          boolean isText = !isType && is(key, TEXT);
          if ((isType || isText) && json.peek() == '"') {
            ByteSink value = new ByteSink(64);
            json.string(value);
            if (isType) {
              type = value;
            } else {
              text = value;
            }
          } else {
            if (isType) {
              type = null;
            } else if (isText) {
              text = null;
            }
            json.skip();
          }
        }
      }
      json.rewind(end);
      if (type != null && text != null && is(type, TEXT)) {
        scratch.copy(text, 0, text.size());
        return;
      }
      scratch.write(PART);
      if (type != null) {
        scratch.copy(type, 0, type.size());
      } else {
        scratch.write(JSON_PART);
      }
      scratch.write(':');
      scratch.write(ascii(HEX.formatHex(Sha256.newDigest().digest(compact.toByteArray()), 0, 8)));
      scratch.write('|');
      scratch.write('>');
    }

    private void toolCalls() throws Malformed {
      byte next = json.peek();
      if (next == '[') {
        json.enter((byte) '[');
        for (boolean first = true; json.more((byte) ']', first); first = false) {
          toolCall();
        }
      } else if (!nullValue()) {
        toolCall();
      }
    }

    private void toolCall() throws Malformed {
      scratch.write(TOOL_CALL);
      json.compact(scratch);
      scratch.write('\n');
    }

    private void tools() throws Malformed {
      if (nullValue()) {
        toolsStart = ABSENT;
        return;
      }
      if (json.peek() != '[') {
        toolsStart = INVALID;
        json.skip();
        return;
      }
      int start = out.size();
      json.enter((byte) '[');
      for (boolean first = true; json.more((byte) ']', first); first = false) {
        if (first) {
          out.write(TOOLS_START);
        }
        json.compact(out);
        out.write('\n');
      }
      if (out.size() > start) {
        out.write(END);
      }
      toolsStart = start;
      toolsEnd = out.size();
    }

    private void prompt() throws Malformed {
      if (nullValue()) {
        promptStart = ABSENT;
        return;
      }
      int start = out.size();
      byte next = json.peek();
      if (next == '"') {
        json.string(out);
        promptStart = start;
        promptEnd = out.size();
        return;
      }
      if (next != '[') {
        promptStart = INVALID;
        json.skip();
        return;
      }
      boolean ok = true;
      json.enter((byte) '[');
      for (boolean first = true; json.more((byte) ']', first); first = false) {
        byte element = json.peek();
        if (!ok) {
          json.skip();
        } else if (element == '"') {
          // A batch of prompts is several engine requests but one record: they are chunked one
          // after the other.
          json.string(out);
        } else if (element == '[') {
          json.enter((byte) '[');
          for (boolean firstId = true; json.more((byte) ']', firstId); firstId = false) {
            if (ok) {
              ok = tokenId();
            } else {
              json.skip();
            }
          }
        } else {
          ok = tokenId();
        }
      }
      promptStart = ok ? start : INVALID;
      promptEnd = out.size();
    }

    /** A token id as its decimal text and a space; false (having consumed it) if not an integer. */
    private boolean tokenId() throws Malformed {
      if (!json.nextIsInteger()) {
        json.skip();
        return false;
      }
      json.integer(out);
      out.write(' ');
      return true;
    }
  }
}
