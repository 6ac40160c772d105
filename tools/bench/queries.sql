-- full scan
SELECT count(*), max(x) FROM actor_state;
-- per-variant aggregate
SELECT variant_id, max(abs(vx)) FROM actor_state GROUP BY variant_id;
-- per-variant aggregate, one actor
SELECT variant_id, max(abs(vx)) FROM actor_state WHERE actor_id = 1 GROUP BY variant_id;
-- params join, one actor
SELECT json_extract(i.params, '$.actor1.speed') AS p, max(s.vx) FROM variant_info i JOIN actor_state s ON s.variant_id = i.variant_id WHERE s.actor_id = 1 GROUP BY i.variant_id;
-- params join, all actors
SELECT i.variant_id, json_extract(i.params, '$.actor1.speed'), avg(s.x) FROM variant_info i JOIN actor_state s USING (variant_id) GROUP BY i.variant_id;
-- one step across all variants
SELECT variant_id, actor_id, x, y FROM actor_state WHERE step = 100;
-- time window across all variants
SELECT variant_id, actor_id, avg(vx) FROM actor_state WHERE t BETWEEN 5.0 AND 6.0 GROUP BY variant_id, actor_id;
-- ego-lead gap: self-join on (variant_id, step)
SELECT a.variant_id, min(sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y))) FROM actor_state a JOIN actor_state b ON b.variant_id = a.variant_id AND b.step = a.step WHERE a.actor_id = 1 AND b.actor_id = 2 GROUP BY a.variant_id;
-- lane changes from map_location
SELECT variant_id, actor_id, step, prev, lane_id FROM (SELECT variant_id, actor_id, step, lane_id, lag(lane_id) OVER (PARTITION BY variant_id, actor_id ORDER BY step) AS prev FROM map_location) WHERE prev <> lane_id;
-- closest approach and min TTC per variant, from actor_pair
SELECT variant_id, min(distance), min(ttc) FROM actor_pair GROUP BY variant_id;
-- params join with one actor's pairs, from actor_pair
SELECT json_extract(i.params, '$.actor1.speed') AS p, min(a.centre_gap) FROM variant_info i JOIN actor_pair a ON a.variant_id = i.variant_id WHERE a.actor_id = 2 GROUP BY i.variant_id;
