package com.example.text;

import static org.junit.Assert.assertEquals;

import java.util.Arrays;
import java.util.Collection;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.Parameterized;
import org.junit.runners.Parameterized.Parameters;

@RunWith(Parameterized.class)
public class PalindromeTest {

    @Parameters(name = "{index}: isPalindrome({0}) = {1}")
    public static Collection<Object[]> cases() {
        return Arrays.asList(new Object[][] {
            {"racecar", true},
            {"abba", true},
            {"abc", false},
            {"Racecar", true},
            {"A man, a plan, a canal: Panama", true},
            {"No lemon, no melon!", true},
            {"Almost a palindrome", false},
        });
    }

    private final String text;
    private final boolean expected;

    public PalindromeTest(String text, boolean expected) {
        this.text = text;
        this.expected = expected;
    }

    @Test
    public void isPalindrome() {
        assertEquals(expected, StringUtils.isPalindrome(text));
    }
}
