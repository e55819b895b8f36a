package io.prefixlog.tools.corpus;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The {@code tools} array of a generated coding agent ({@link AgentSessions}): six functions with
 * JSON-schema parameters and the long descriptions real agents send with every request.
 */
final class ToolDefinitions {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private ToolDefinitions() {}

  /** A new array of the six definitions. */
  static ArrayNode array() {
    ArrayNode tools = NODES.arrayNode();
    tools.add(
        function(
            "read_file",
            "Reads a file from the local filesystem and returns its content with line numbers, in"
                + " the format of `cat -n`. The path must be absolute or relative to the working"
                + " directory. By default it reads up to 2000 lines from the start of the file;"
                + " pass offset and limit for long files. Lines longer than 2000 characters are"
                + " cut. Always read a file before editing it, and read it again after an edit when"
                + " the exact result matters. Binary files and images are described, not shown.",
            new String[][] {
              {"path", "string", "The path of the file to read."},
              {"offset", "integer", "The line to start reading from, 1-based."},
              {"limit", "integer", "The number of lines to read."}
            },
            "path"));
    tools.add(
        function(
            "edit_file",
            "Performs an exact string replacement in a file. old_string must occur exactly once in"
                + " the file, with its indentation as the file shows it (after the line number"
                + " prefix of read_file's output, which is not part of the file). Use the smallest"
                + " old_string that is unique. Set replace_all to change every occurrence, for"
                + " renaming a variable across the file. The edit fails when old_string is not"
                + " found or is not unique; read the file again and retry with more context.",
            new String[][] {
              {"path", "string", "The path of the file to modify."},
              {"old_string", "string", "The text to replace, exactly as in the file."},
              {"new_string", "string", "The text to replace it with; must differ from it."},
              {"replace_all", "boolean", "Replace every occurrence of old_string."}
            },
            "path",
            "old_string",
            "new_string"));
    tools.add(
        function(
            "write_file",
            "Writes a file to the local filesystem, replacing it if it exists. Prefer edit_file"
                + " for changes to existing files: it sends only the difference. Never create"
                + " documentation files unless asked to. Create parent directories first with"
                + " run_command if they do not exist.",
            new String[][] {
              {"path", "string", "The path of the file to write."},
              {"content", "string", "The whole content of the file."}
            },
            "path",
            "content"));
    tools.add(
        function(
            "run_command",
            "Runs a shell command in a persistent bash session with an optional timeout, and"
                + " returns its standard output and error, cut at 30000 characters, and its exit"
                + " code. Quote paths that contain spaces. Use it for builds, tests, git and package"
                + " managers; use read_file, search_code and list_files instead of cat, grep and"
                + " find. Commands that wait for input are not supported.",
            new String[][] {
              {"command", "string", "The command to run."},
              {"timeout_ms", "integer", "The timeout in milliseconds, at most 600000."},
              {"description", "string", "What the command does, in five to ten words."}
            },
            "command"));
    tools.add(
        function(
            "search_code",
            "Searches file contents with a regular expression (ripgrep syntax) and returns the"
                + " matching lines with their paths and line numbers. Filter files with a glob or a"
                + " type. Literal braces need escaping. Results are sorted by modification time and"
                + " cut after 500 matches; narrow the pattern or the path when that happens.",
            new String[][] {
              {"pattern", "string", "The regular expression to search for."},
              {"path", "string", "The directory or file to search in."},
              {"glob", "string", "Only files whose names match this glob."}
            },
            "pattern"));
    tools.add(
        function(
            "list_files",
            "Lists the files and directories under a path, recursively up to a depth, ignoring"
                + " what .gitignore excludes. Prefer search_code when you know what to look for.",
            new String[][] {
              {"path", "string", "The directory to list."},
              {"depth", "integer", "How many levels to descend, 1 to 5."}
            },
            "path"));
    return tools;
  }

  private static ObjectNode function(
      String name, String description, String[][] parameters, String... required) {
    ObjectNode tool = NODES.objectNode();
    tool.put("type", "function");
    ObjectNode function = tool.putObject("function");
    function.put("name", name);
    function.put("description", description);
    ObjectNode schema = function.putObject("parameters");
    schema.put("type", "object");
    ObjectNode properties = schema.putObject("properties");
    for (String[] parameter : parameters) {
      ObjectNode property = properties.putObject(parameter[0]);
      property.put("type", parameter[1]);
      property.put("description", parameter[2]);
    }
    ArrayNode names = schema.putArray("required");
    for (String r : required) {
      names.add(r);
    }
    schema.put("additionalProperties", false);
    return tool;
  }
}
