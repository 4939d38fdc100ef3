package com.example.geo;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class AnglesTest {

    @Test
    void halfTurnIsPi() {
        assertEquals(Math.PI, Angles.toRadians(180), 1e-12);
    }

    @Test
    void piIsHalfTurn() {
        assertEquals(180.0, Angles.toDegrees(Math.PI), 1e-12);
    }
}
