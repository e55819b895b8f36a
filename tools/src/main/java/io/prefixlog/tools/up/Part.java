package io.prefixlog.tools.up;

/**
 * One running piece of {@code up} (the broker, the stream app, the archive, the demo engines, the
 * capture proxy). A part is started by a static {@code start} method that returns it running, with
 * what later parts need from it (a bootstrap address, a URL) already fixed as immutable values, so
 * that no part reads another's state. {@link Parts} stops them in reverse order of start.
 */
interface Part extends AutoCloseable {
  /**
   * Stops the part and releases what it holds. Idempotent: {@link Parts} calls it once, but the
   * shutdown hook and a failing start may race to it.
   */
  @Override
  void close();
}
