package io.prefixlog.tools.reconstruct;

/** The trace formats {@link ExportService} writes captured traffic as. */
public enum ExportFormat {
  /** Mooncake's trace: arrival times, lengths and the prompt's block hashes. */
  MOONCAKE("mooncake"),
  /** A {@code vllm bench serve} custom dataset: the prompts themselves, one JSON line each. */
  VLLM_CUSTOM("vllm-custom");

  final String wireName;

  ExportFormat(String wireName) {
    this.wireName = wireName;
  }

  /** The name {@code --format} takes. */
  public String wireName() {
    return wireName;
  }

  static ExportFormat of(String name) {
    for (ExportFormat format : values()) {
      if (format.wireName.equals(name)) {
        return format;
      }
    }
    throw new IllegalArgumentException(
        "unknown format '" + name + "', expected mooncake or vllm-custom");
  }
}
