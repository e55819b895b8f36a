/** Creating the app's topics with the settings the contract gives them. */
package io.prefixlog.streams.admin;
