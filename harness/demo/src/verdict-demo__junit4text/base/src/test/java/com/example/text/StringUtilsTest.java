package com.example.text;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class StringUtilsTest {

    @Test
    public void reverseReversesCharacters() {
        assertEquals("cba", StringUtils.reverse("abc"));
    }

    @Test
    public void repeatRepeats() {
        assertEquals("ababab", StringUtils.repeat("ab", 3));
    }

    @Test(expected = IllegalArgumentException.class)
    public void repeatRejectsNegativeCounts() {
        StringUtils.repeat("ab", -1);
    }

    @Test
    public void abbreviateKeepsShortText() {
        assertEquals("hello", StringUtils.abbreviate("hello", 8));
    }
}
