/* Character actors (assets of kind: character): people, moved as point
 * masses. A character has no axles and no vehicle model; its behaviour
 * (one whose descriptor drives characters) writes where it is, how fast
 * it goes and which way it faces at the end of each step, in vs_control's
 * character fields (plugin.h), and the host turns that into its state. */
#ifndef VS_SIM_CHARACTER_H
#define VS_SIM_CHARACTER_H

#include <vsweep/plugin.h>

/* Sets the character fields of c to NaN ("not written"), as the host
 * does before every behaviour_step. */
void vs_character_control_clear(vs_control *c);

/* 1 when a character's behaviour wrote a usable control: vx, vy finite,
 * x, y, yaw finite or NaN. */
int vs_character_control_ok(const vs_control *c);

/* Step k of a character: from its state at step k-1 (prev) and its
 * behaviour's control, the state at step k into cur (dt in s). Position
 * x, y (or prev + v dt), velocity (vx, vy), yaw (or along the velocity,
 * or prev's while standing); speed is the velocity along the new
 * heading, wz the yaw change over dt; z, roll, pitch and their rates are
 * prev's (the host lifts a route's z afterwards), steer 0. */
void vs_character_step(const vs_state *prev, const vs_control *c, double dt,
                       vs_state *cur);

#endif
