package io.locked.demo;

/**
 * This process's shop name, for the sales table.
 *
 * @param value the name
 */
public record ShopName(String value) {
}
