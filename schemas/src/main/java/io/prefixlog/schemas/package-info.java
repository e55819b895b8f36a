/** Wire types shared by every prefixlog module: topics, records and their Serdes. */
package io.prefixlog.schemas;
