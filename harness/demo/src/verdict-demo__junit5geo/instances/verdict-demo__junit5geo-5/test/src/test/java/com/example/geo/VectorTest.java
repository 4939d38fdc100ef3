package com.example.geo;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class VectorTest {

    @Test
    void plusAddsComponents() {
        assertEquals(new Vector2(4, 6), new Vector2(1, 2).plus(new Vector2(3, 4)));
    }

    @Test
    void lengthOfThreeFourIsFive() {
        assertEquals(5.0, new Vector2(3, 4).length(), 1e-9);
    }

    @Test
    void scaleMultipliesBothComponents() {
        assertEquals(new Vector2(3, 6), new Vector2(1, 2).scale(3));
    }

    @Test
    void normalizeHasUnitLength() {
        assertEquals(1.0, new Vector2(3, 4).normalize().length(), 1e-9);
    }
}
