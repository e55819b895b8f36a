package io.prefixlog.streams.upgrade;

/**
 * The running members of the group have another topology, or formats this instance and they cannot
 * share: the instance does not start. The message says which members, what differs and what to do.
 */
public final class IncompatibleGroupException extends IllegalStateException {
  IncompatibleGroupException(String message) {
    super(message);
  }
}
