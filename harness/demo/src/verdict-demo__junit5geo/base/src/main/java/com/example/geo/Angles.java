package com.example.geo;

/** Conversions between degrees and radians. */
public final class Angles {
    private Angles() {
    }

    public static double toRadians(double degrees) {
        return degrees * Math.PI / 180.0;
    }

    public static double toDegrees(double radians) {
        return radians * 180.0 / Math.PI;
    }
}
