//! Integration tests, in one binary. The Docker-backed ones run the real `verdict` binary
//! against a real engine (CI starts one with dockerfiles/engine.sh) on the bundled demo.

mod util;

mod bad_input;
mod collect;
mod decide;
mod demo;
mod docker_input;
mod engines;
mod faults;
mod guard;
mod reports;
mod specs;
mod swarm;
mod toolchains;
mod validate;
