/* Character actors as point masses (character.h). */
#include "sim/character.h"

#include <math.h>

#include "common/util.h"

void vs_character_control_clear(vs_control *c)
{
	c->x = c->y = c->vx = c->vy = c->yaw = NAN;
}

int vs_character_control_ok(const vs_control *c)
{
	return isfinite(c->vx) && isfinite(c->vy) && !isinf(c->x) &&
	       !isinf(c->y) && !isinf(c->yaw);
}

void vs_character_step(const vs_state *prev, const vs_control *c, double dt,
                       vs_state *cur)
{
	*cur = *prev;
	cur->x = isnan(c->x) ? prev->x + c->vx * dt : c->x;
	cur->y = isnan(c->y) ? prev->y + c->vy * dt : c->y;
	cur->vx = c->vx;
	cur->vy = c->vy;
	if (!isnan(c->yaw))
		cur->yaw = vs_wrap_angle(c->yaw);
	else if (c->vx != 0 || c->vy != 0) /* heading from +X is yaw + pi/2 */
		cur->yaw = vs_wrap_angle(atan2(c->vy, c->vx) - VS_PI / 2);
	/* Forward is (-sin yaw, cos yaw): the signed speed along it. */
	cur->speed = -sin(cur->yaw) * c->vx + cos(cur->yaw) * c->vy;
	cur->wz = dt > 0 ? vs_wrap_angle(cur->yaw - prev->yaw) / dt : 0;
	cur->steer = 0;
}
