package io.prefixlog.core.chunk;

import com.fasterxml.jackson.databind.JsonNode;
import io.prefixlog.schemas.json.Json;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The rendering of {@link PromptRenderer} written the obvious way, over Jackson's tree: slower, but
 * easy to check against the specification, so the tests compare the two byte for byte.
 */
final class TreeRenderer {
  private TreeRenderer() {}

  /** The rendering as {@code kind:text}, with {@code raw_body:} and no text for the raw body. */
  static String render(byte[] body) {
    JsonNode root;
    try {
      root = Json.mapper().readTree(body);
    } catch (IOException e) {
      return "raw_body:";
    }
    if (root == null || !root.isObject()) {
      return "raw_body:";
    }
    JsonNode messages = root.get("messages");
    if (messages != null && !messages.isNull()) {
      String chat = chat(root, messages);
      return chat == null ? "raw_body:" : "chat_messages:" + chat;
    }
    JsonNode prompt = root.get("prompt");
    if (prompt != null && !prompt.isNull()) {
      String text = prompt(prompt);
      return text == null ? "raw_body:" : "completion_prompt:" + text;
    }
    return "raw_body:";
  }

  private static String chat(JsonNode root, JsonNode messages) {
    if (!messages.isArray()) {
      return null;
    }
    StringBuilder out = new StringBuilder();
    JsonNode tools = root.get("tools");
    if (tools != null && !tools.isNull()) {
      if (!tools.isArray()) {
        return null;
      }
      if (!tools.isEmpty()) {
        out.append("<|tools|>\n");
        for (JsonNode tool : tools) {
          out.append(json(tool)).append('\n');
        }
        out.append("<|end|>\n");
      }
    }
    for (JsonNode message : messages) {
      JsonNode role = message.get("role");
      if (!message.isObject() || role == null || !role.isTextual()) {
        return null;
      }
      out.append("<|").append(role.textValue()).append("|>");
      JsonNode name = message.get("name");
      if (name != null && name.isTextual()) {
        out.append(" name=").append(name.textValue());
      }
      JsonNode id = message.get("tool_call_id");
      if (id != null && id.isTextual()) {
        out.append(" tool_call_id=").append(id.textValue());
      }
      out.append('\n');
      JsonNode content = message.get("content");
      if (content != null && !content.isNull()) {
        if (content.isTextual()) {
          out.append(content.textValue());
        } else if (content.isArray()) {
          boolean first = true;
          for (JsonNode part : content) {
            if (!first) {
              out.append('\n');
            }
            first = false;
            JsonNode text = part.get("text");
            if (part.isTextual()) {
              out.append(part.textValue());
            } else if ("text".equals(part.path("type").asText(null))
                && text != null
                && text.isTextual()) {
              out.append(text.textValue());
            } else {
              JsonNode type = part.get("type");
              out.append("<|part:")
                  .append(type != null && type.isTextual() ? type.textValue() : "json")
                  .append(':')
                  .append(
                      HexFormat.of()
                          .formatHex(sha256(json(part).getBytes(StandardCharsets.UTF_8)), 0, 8))
                  .append("|>");
            }
          }
        } else {
          out.append(json(content));
        }
      }
      JsonNode calls = message.get("tool_calls");
      if (calls != null && !calls.isNull()) {
        if (calls.isArray()) {
          for (JsonNode call : calls) {
            out.append("<|tool_call|>").append(json(call)).append('\n');
          }
        } else {
          out.append("<|tool_call|>").append(json(calls)).append('\n');
        }
      }
      out.append("<|end|>\n");
    }
    return out.toString();
  }

  private static String prompt(JsonNode prompt) {
    if (prompt.isTextual()) {
      return prompt.textValue();
    }
    if (!prompt.isArray()) {
      return null;
    }
    StringBuilder out = new StringBuilder();
    for (JsonNode element : prompt) {
      if (element.isTextual()) {
        out.append(element.textValue());
      } else if (element.isIntegralNumber()) {
        out.append(element.asText()).append(' ');
      } else if (element.isArray()) {
        for (JsonNode token : element) {
          if (!token.isIntegralNumber()) {
            return null;
          }
          out.append(token.asText()).append(' ');
        }
      } else {
        return null;
      }
    }
    return out.toString();
  }

  /** Compact JSON as the package specifies it (numbers as Jackson writes them back). */
  static String json(JsonNode node) {
    StringBuilder out = new StringBuilder();
    json(node, out);
    return out.toString();
  }

  private static void json(JsonNode node, StringBuilder out) {
    if (node.isObject()) {
      out.append('{');
      boolean first = true;
      for (var field : node.properties()) {
        if (!first) {
          out.append(',');
        }
        first = false;
        string(field.getKey(), out);
        out.append(':');
        json(field.getValue(), out);
      }
      out.append('}');
    } else if (node.isArray()) {
      out.append('[');
      boolean first = true;
      for (JsonNode element : node) {
        if (!first) {
          out.append(',');
        }
        first = false;
        json(element, out);
      }
      out.append(']');
    } else if (node.isTextual()) {
      string(node.textValue(), out);
    } else {
      out.append(node.asText());
    }
  }

  private static void string(String s, StringBuilder out) {
    out.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20) {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  private static byte[] sha256(byte[] bytes) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(bytes);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
