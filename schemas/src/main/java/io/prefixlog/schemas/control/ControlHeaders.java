package io.prefixlog.schemas.control;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * The header that marks a record on an input topic as a control record rather than data: {@value
 * #NAME} with the value {@value #ERASE}. Only a Kafka client with write access to the input topics
 * can set it: the capture proxy and the ingest endpoint write records of their own, never a
 * client's headers. Who may write {@code requests.raw} and {@code kv.events} may therefore erase
 * sessions, which the Kafka ACLs of a deployment should reflect.
 */
public final class ControlHeaders {
  public static final String NAME = "prefixlog-control";
  public static final String ERASE = "erase";

  private static final byte[] ERASE_BYTES = ERASE.getBytes(StandardCharsets.UTF_8);

  private ControlHeaders() {}

  /** True when the record carries the erase control header (its last value wins). */
  public static boolean isErase(Headers headers) {
    if (headers == null) {
      return false;
    }
    Header header = headers.lastHeader(NAME);
    return header != null && java.util.Arrays.equals(header.value(), ERASE_BYTES);
  }

  /** Marks {@code headers} as an erase order. */
  public static Headers markErase(Headers headers) {
    headers.remove(NAME);
    headers.add(NAME, ERASE_BYTES.clone());
    return headers;
  }
}
