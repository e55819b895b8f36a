package io.prefixlog.tools.corpus;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.prefixlog.schemas.json.Json;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Generates long coding-agent sessions from the text of the bundled agentic corpora: the traffic
 * that dominates inference fleets, which the corpora themselves (short chats, 20–30 KB agent turns)
 * do not show.
 *
 * <p>A session is an OpenAI chat conversation with a system prompt, a {@code tools} array of six
 * functions, the task as the first user message, then per turn an assistant message with one tool
 * call (JSON arguments) and the tool's result. Request {@code t} carries every message before the
 * assistant's answer to it, as an SDK client resends its whole history. Tool results are files
 * shown with line numbers, command output and search hits, made of corpus lines; the shape's shares
 * decide how often a result shows an earlier file again with a few lines edited, and how often an
 * edit call quotes a passage of an earlier result (JSON-escaped once more inside the call's {@code
 * arguments} string, as clients send it). Every {@code compactEvery} turns a compaction replaces
 * the oldest tool results with a stub, as coding agents do to stay within the context window: an
 * edit deep inside the shared prefix.
 *
 * <p>Deterministic: the same corpora, shape and seed give the same bytes. Sessions are interleaved
 * at random, as concurrent sessions reach a proxy.
 */
public final class AgentSessions {
  /** The {@code model} field of every request. */
  public static final String MODEL = "Qwen/Qwen3-Coder-480B-A35B-Instruct";

  /** What a compaction leaves of a tool result. */
  static final String CLEARED = "[Old tool result content cleared]";

  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
  private static final String ID_CHARS =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  private static final String[] EXTENSIONS = {".py", ".ts", ".go", ".java", ".rs", ".md"};
  private static final String[] DIRECTORIES = {
    "src", "src/core", "src/api", "lib", "tests", "internal/store", "pkg/server", "docs"
  };

  private final AgentShape shape;
  private final List<String> lines;
  private final List<String> prose;
  private final String systemPrompt;
  private final List<String> tasks;

  private AgentSessions(
      AgentShape shape,
      List<String> lines,
      List<String> prose,
      String systemPrompt,
      List<String> tasks) {
    this.shape = shape;
    this.lines = lines;
    this.prose = prose;
    this.systemPrompt = systemPrompt;
    this.tasks = tasks;
  }

  /**
   * Reads the text the sessions are made of from the corpora: the agentic ones give the system
   * prompt, the tasks and the assistant's prose; every corpus gives lines for tool results.
   *
   * @param corpora the {@code corpora/} directory ({@code agentic/*.jsonl} and {@code
   *     chat/*.jsonl})
   */
  public static AgentSessions fromCorpora(Path corpora, AgentShape shape) {
    Objects.requireNonNull(shape, "shape");
    Set<String> lines = new LinkedHashSet<>();
    Set<String> prose = new LinkedHashSet<>();
    Set<String> systems = new LinkedHashSet<>();
    List<String> tasks = new ArrayList<>();
    for (String kind : List.of("agentic", "chat")) {
      for (Path file : corpusFiles(corpora.resolve(kind))) {
        boolean agentic = kind.equals("agentic");
        for (Conversation conversation : CorpusFile.read(file)) {
          boolean firstUser = true;
          for (ObjectNode message : conversation.messages()) {
            String role = message.path("role").asText();
            String content = text(message.path("content"));
            if (content.isEmpty()) {
              continue;
            }
            if (role.equals("system")) {
              if (agentic) {
                systems.add(content);
              }
              continue;
            }
            if (agentic && role.equals("user") && firstUser) {
              tasks.add(content);
            }
            if (agentic && role.equals("assistant")) {
              prose.add(content);
            }
            firstUser &= !role.equals("user");
            addLines(content, lines);
          }
        }
      }
    }
    if (lines.size() < 1_000 || tasks.isEmpty() || systems.isEmpty() || prose.isEmpty()) {
      throw new IllegalArgumentException(
          "the corpora in " + corpora + " hold too little text for agent sessions");
    }
    return new AgentSessions(
        shape,
        List.copyOf(lines),
        List.copyOf(prose),
        String.join("\n\n", systems),
        List.copyOf(tasks));
  }

  private static List<Path> corpusFiles(Path directory) {
    try (Stream<Path> listed = Files.list(directory)) {
      return listed.filter(p -> p.toString().endsWith(".jsonl")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list the corpus directory " + directory, e);
    }
  }

  public AgentShape shape() {
    return shape;
  }

  /** Every request of every session, interleaved as concurrent sessions send them. */
  public List<AgentRequest> requests() {
    Random random = new Random(shape.seed());
    List<Session> sessions = new ArrayList<>();
    for (int s = 0; s < shape.sessions(); s++) {
      sessions.add(new Session(s, new Random(random.nextLong())));
    }
    List<AgentRequest> out = new ArrayList<>(shape.sessions() * shape.turns());
    List<Session> live = new ArrayList<>(sessions);
    while (!live.isEmpty()) {
      Session session = live.get(random.nextInt(live.size()));
      out.add(session.next());
      if (session.turn == shape.turns()) {
        live.remove(session);
      }
    }
    return out;
  }

  /**
   * One request of a generated session.
   *
   * @param session the session's index, 0-based
   * @param conversationId the id a client would send as its session header
   * @param turn 1 for the first request of the session
   * @param body the exact request bytes
   */
  public record AgentRequest(int session, String conversationId, int turn, byte[] body) {
    @Override
    public String toString() {
      return "AgentRequest[conversationId=" + conversationId + ", turn=" + turn + "]";
    }
  }

  /** One conversation being generated: its history so far and the files it has been shown. */
  private final class Session {
    private final int index;
    private final Random random;
    private final String conversationId;
    private final ArrayNode tools;
    private final List<ObjectNode> history = new ArrayList<>();
    private final List<ObjectNode> toolResults = new ArrayList<>();
    private final List<Shown> shown = new ArrayList<>();
    private int turn;

    Session(int index, Random random) {
      this.index = index;
      this.random = random;
      this.conversationId = "agent-" + index + "-" + Long.toHexString(random.nextLong());
      this.tools = ToolDefinitions.array();
      history.add(message("system", systemPrompt));
      history.add(message("user", tasks.get(random.nextInt(tasks.size()))));
    }

    AgentRequest next() {
      if (turn > 0) {
        act();
        if (shape.compactEvery() > 0 && turn % shape.compactEvery() == 0) {
          compact();
        }
      }
      turn++;
      return new AgentRequest(index, conversationId, turn, body());
    }

    /** The assistant's answer to the previous request: one tool call, and the tool's result. */
    private void act() {
      double kind = random.nextDouble();
      String callId = "call_" + randomId(24);
      ObjectNode arguments = NODES.objectNode();
      String name;
      String result;
      if (kind < 0.40) {
        name = "read_file";
        Shown earlier = shown.isEmpty() ? null : shown.get(random.nextInt(shown.size()));
        if (earlier != null && random.nextDouble() < shape.reshowShare()) {
          // The same file again after an edit: a few lines differ from what was shown.
          arguments.put("path", earlier.path);
          result = numbered(edited(earlier.lines));
          shown.add(new Shown(earlier.path, edited(earlier.lines)));
        } else {
          String path = randomPath();
          List<String> file = fileLines(resultSize());
          arguments.put("path", path);
          result = numbered(file);
          shown.add(new Shown(path, file));
        }
      } else if (kind < 0.65 && !shown.isEmpty()) {
        name = "edit_file";
        Shown file = shown.get(random.nextInt(shown.size()));
        String oldText;
        if (random.nextDouble() < shape.quoteShare()) {
          oldText = passage(String.join("\n", file.lines), shape.quoteChars());
        } else {
          oldText = file.lines.get(random.nextInt(file.lines.size()));
        }
        String newText = oldText + "\n" + randomLine();
        arguments.put("path", file.path);
        arguments.put("old_string", oldText);
        arguments.put("new_string", newText);
        result =
            "The file "
                + file.path
                + " has been updated. Here's the result of running `cat -n` on a snippet:\n"
                + numbered(List.of(newText.split("\n", -1)));
      } else if (kind < 0.85) {
        name = "run_command";
        arguments.put("command", runCommand());
        result = String.join("\n", fileLines(resultSize())) + "\n\nexit code: 0";
      } else {
        name = "search_code";
        String pattern = word();
        arguments.put("pattern", pattern);
        arguments.put("path", DIRECTORIES[random.nextInt(DIRECTORIES.length)]);
        StringBuilder hits = new StringBuilder();
        int target = resultSize();
        while (hits.length() < target) {
          hits.append(randomPath())
              .append(':')
              .append(1 + random.nextInt(900))
              .append(": ")
              .append(randomLine())
              .append('\n');
        }
        result = hits.toString();
      }
      ObjectNode assistant = message("assistant", prose.get(random.nextInt(prose.size())));
      ObjectNode call = assistant.putArray("tool_calls").addObject();
      call.put("id", callId);
      call.put("type", "function");
      ObjectNode function = call.putObject("function");
      function.put("name", name);
      function.put("arguments", Json.treeString(arguments));
      history.add(assistant);
      ObjectNode tool = NODES.objectNode();
      tool.put("role", "tool");
      tool.put("tool_call_id", callId);
      tool.put("content", result);
      history.add(tool);
      toolResults.add(tool);
    }

    /** Replaces every tool result but the newest few with a stub. */
    private void compact() {
      for (int i = 0; i < toolResults.size() - shape.keepRecentResults(); i++) {
        toolResults.get(i).put("content", CLEARED);
      }
    }

    private byte[] body() {
      ObjectNode body = NODES.objectNode();
      body.put("model", MODEL);
      ArrayNode messages = body.putArray("messages");
      for (ObjectNode message : history) {
        messages.add(message.deepCopy());
      }
      body.set("tools", tools);
      body.put("tool_choice", "auto");
      body.put("stream", true);
      body.putObject("stream_options").put("include_usage", true);
      body.put("temperature", 0.0);
      body.put("max_tokens", 8192);
      return Json.treeBytes(body);
    }

    private int resultSize() {
      return shape.minToolResultBytes()
          + random.nextInt(shape.maxToolResultBytes() - shape.minToolResultBytes() + 1);
    }

    /**
     * A new file or output of about {@code bytes}: consecutive lines of the corpora from a random
     * place, so that its text reads as one piece and is new unless it overlaps what was shown.
     */
    private List<String> fileLines(int bytes) {
      List<String> file = new ArrayList<>();
      int at = random.nextInt(lines.size());
      int size = 0;
      while (size < bytes) {
        String line = lines.get(at);
        at = (at + 1) % lines.size();
        file.add(line);
        size += line.length() + 8;
      }
      return file;
    }

    /** The file with one to five of its lines replaced, as an edit leaves it. */
    private List<String> edited(List<String> file) {
      List<String> copy = new ArrayList<>(file);
      int edits = 1 + random.nextInt(5);
      for (int e = 0; e < edits; e++) {
        copy.set(random.nextInt(copy.size()), randomLine());
      }
      return copy;
    }

    /** About {@code chars} characters of {@code text}, starting and ending at line boundaries. */
    private String passage(String text, int chars) {
      if (text.length() <= chars) {
        return text;
      }
      int start = random.nextInt(text.length() - chars);
      int lineStart = text.lastIndexOf('\n', start) + 1;
      int end = text.indexOf('\n', lineStart + chars);
      return text.substring(lineStart, end < 0 ? text.length() : end);
    }

    private String randomLine() {
      return lines.get(random.nextInt(lines.size()));
    }

    private String word() {
      String[] words = randomLine().split("\\W+");
      for (String w : words) {
        if (w.length() >= 5) {
          return w;
        }
      }
      return "TODO";
    }

    private String randomPath() {
      return DIRECTORIES[random.nextInt(DIRECTORIES.length)]
          + "/"
          + word().toLowerCase(java.util.Locale.ROOT)
          + EXTENSIONS[random.nextInt(EXTENSIONS.length)];
    }

    private String runCommand() {
      String[] commands = {"pytest -x -q ", "go test ./", "npm test -- ", "cargo test ", "make "};
      return commands[random.nextInt(commands.length)] + word().toLowerCase(java.util.Locale.ROOT);
    }

    private String randomId(int length) {
      StringBuilder id = new StringBuilder(length);
      for (int i = 0; i < length; i++) {
        id.append(ID_CHARS.charAt(random.nextInt(ID_CHARS.length())));
      }
      return id.toString();
    }
  }

  /** A file as the session was last shown it. */
  private record Shown(String path, List<String> lines) {}

  /** Lines as a file viewer shows them: {@code cat -n}'s right-aligned numbers and a tab. */
  static String numbered(List<String> file) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < file.size(); i++) {
      String number = Integer.toString(i + 1);
      out.append(" ".repeat(Math.max(0, 6 - number.length())))
          .append(number)
          .append('\t')
          .append(file.get(i))
          .append('\n');
    }
    return out.toString();
  }

  private static ObjectNode message(String role, String content) {
    ObjectNode message = NODES.objectNode();
    message.put("role", role);
    message.put("content", content);
    return message;
  }

  /** A message's text: a string content, or the text parts of an array content. */
  private static String text(JsonNode content) {
    if (content.isTextual()) {
      return content.asText();
    }
    StringBuilder text = new StringBuilder();
    for (JsonNode part : content) {
      if (part.path("text").isTextual()) {
        text.append(part.path("text").asText()).append('\n');
      }
    }
    return text.toString();
  }

  /**
   * Adds the lines of {@code text} worth showing as file content: not blank, and at most 240
   * characters (a longer line, such as a one-line JSON tool output, is cut at its commas).
   */
  private static void addLines(String text, Set<String> into) {
    for (String line : text.split("\\r?\\n")) {
      String trimmed = line.stripTrailing();
      if (trimmed.isBlank()) {
        continue;
      }
      if (trimmed.length() <= 240) {
        into.add(trimmed);
        continue;
      }
      StringBuilder piece = new StringBuilder();
      for (String part : trimmed.split("(?<=, )")) {
        if (piece.length() + part.length() > 240 && piece.length() > 0) {
          into.add(piece.toString().stripTrailing());
          piece.setLength(0);
        }
        piece.append(part);
      }
      if (!piece.toString().isBlank()) {
        into.add(piece.toString().stripTrailing());
      }
    }
  }
}
