/** {@code prefixlog settings}: every service's settings, rendered from their descriptor tables. */
package io.prefixlog.tools.settings;
