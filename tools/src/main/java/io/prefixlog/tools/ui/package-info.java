/** {@code prefixlog ui}: the session explorer, a small web UI over the captured sessions. */
package io.prefixlog.tools.ui;
