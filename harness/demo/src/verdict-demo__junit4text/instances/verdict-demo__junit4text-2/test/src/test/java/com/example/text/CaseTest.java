package com.example.text;

import static org.junit.Assert.assertEquals;

import org.junit.Test;
import org.junit.experimental.runners.Enclosed;
import org.junit.runner.RunWith;

@RunWith(Enclosed.class)
public class CaseTest {

    public static class Capitalize {
        @Test
        public void upperCasesTheFirstLetter() {
            assertEquals("Hello", StringUtils.capitalize("hello"));
        }

        @Test
        public void keepsAnUpperCaseWord() {
            assertEquals("Hello", StringUtils.capitalize("Hello"));
        }

        @Test
        public void leavesTheEmptyStringAlone() {
            assertEquals("", StringUtils.capitalize(""));
        }
    }

    public static class Reverse {
        @Test
        public void reversesAWord() {
            assertEquals("olleh", StringUtils.reverse("hello"));
        }
    }
}
