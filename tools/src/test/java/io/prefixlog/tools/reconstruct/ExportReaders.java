package io.prefixlog.tools.reconstruct;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * Readers of the two export formats written from their published field lists, not from prefixlog's
 * writer: Mooncake's trace (timestamp, input_length, output_length, hash_ids) and the JSONL custom
 * dataset of {@code vllm bench serve} (the keys CustomDataset in vllm/benchmarks/datasets.py reads:
 * a {@code prompt} column, required, and {@code output_tokens}, read with {@code int()} when {@code
 * --custom-output-len} is -1; the file name must end in {@code .jsonl}). Each fails the test on a
 * line the format does not allow.
 */
public final class ExportReaders {
  private ExportReaders() {}

  /**
   * An independent reader of Mooncake's trace format, from its published field list: every line one
   * JSON object of exactly timestamp (ms), input_length, output_length (integers) and hash_ids
   * (integer block ids, new ids numbered in first-seen order).
   */
  public static List<JsonNode> mooncake(Path file) throws IOException {
    ObjectMapper mapper = new ObjectMapper();
    List<JsonNode> lines = new ArrayList<>();
    Set<Long> seen = new TreeSet<>();
    long previous = 0;
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      JsonNode node = mapper.readTree(line);
      assertThat(node.isObject()).isTrue();
      Set<String> fields = new TreeSet<>();
      node.fieldNames().forEachRemaining(fields::add);
      assertThat(fields).containsExactly("hash_ids", "input_length", "output_length", "timestamp");
      assertThat(node.get("timestamp").isIntegralNumber()).isTrue();
      assertThat(node.get("input_length").isIntegralNumber()).isTrue();
      assertThat(node.get("output_length").isIntegralNumber()).isTrue();
      assertThat(node.get("timestamp").asLong()).isGreaterThanOrEqualTo(previous);
      previous = node.get("timestamp").asLong();
      for (Iterator<JsonNode> ids = node.get("hash_ids").elements(); ids.hasNext(); ) {
        JsonNode id = ids.next();
        assertThat(id.isIntegralNumber()).isTrue();
        if (!seen.contains(id.asLong())) {
          assertThat(id.asLong()).as("a new id is the next integer").isEqualTo(seen.size());
          seen.add(id.asLong());
        }
      }
      lines.add(node);
    }
    return lines;
  }

  /**
   * An independent reader of vLLM's custom dataset, from the keys vllm/benchmarks/datasets.py's
   * CustomDataset reads: a string {@code prompt} on every line, an integer {@code output_tokens}
   * when given.
   */
  public static List<JsonNode> vllmCustom(Path file) throws IOException {
    assertThat(file.getFileName().toString()).endsWith(".jsonl");
    ObjectMapper mapper = new ObjectMapper();
    List<JsonNode> lines = new ArrayList<>();
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      JsonNode node = mapper.readTree(line);
      Set<String> fields = new TreeSet<>();
      node.fieldNames().forEachRemaining(fields::add);
      assertThat(fields).containsExactly("output_tokens", "prompt");
      assertThat(node.get("prompt").isTextual()).isTrue();
      assertThat(node.get("output_tokens").isIntegralNumber()).isTrue();
      lines.add(node);
    }
    return lines;
  }

  /** A Mooncake line's block ids. */
  public static List<Long> hashIds(JsonNode line) {
    List<Long> ids = new ArrayList<>();
    line.get("hash_ids").elements().forEachRemaining(id -> ids.add(id.asLong()));
    return ids;
  }
}
