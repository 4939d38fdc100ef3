package com.example.text;

/** Small string helpers. */
public final class StringUtils {
    private StringUtils() {
    }

    public static String reverse(String text) {
        return new StringBuilder(text).reverse().toString();
    }

    /** Whether the text reads the same backwards. */
    public static boolean isPalindrome(String text) {
        return text.equals(reverse(text));
    }

    /** The text repeated {@code times} times; {@code times} must not be negative. */
    public static String repeat(String text, int times) {
        if (times <= 0) {
            throw new IllegalArgumentException("times must not be negative: " + times);
        }
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < times; i++) {
            out.append(text);
        }
        return out.toString();
    }

    public static String capitalize(String text) {
        return Character.toUpperCase(text.charAt(0)) + text.substring(1);
    }

    /** Cuts the text to at most {@code max} characters, ending with "..." when cut. */
    public static String abbreviate(String text, int max) {
        if (text.length() <= max) {
            return text;
        }
        return text.substring(0, Math.max(0, max - 3)) + "...";
    }
}
