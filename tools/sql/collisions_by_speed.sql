-- Collisions by the crossing car's speed (scenarios/crossing.yaml +
-- crossing_speed.yaml): how many starts collide at each speed, and when.
SELECT json_extract(v.params, '$.actor2.speed')  AS speed_mps,
       count(DISTINCT v.variant_id)             AS variants,
       count(e.variant_id)                      AS collisions,
       group_concat(round(e.t, 2), ' ')         AS at_t_s
FROM variant_info v
LEFT JOIN event e ON e.variant_id = v.variant_id AND e.kind = 'collision'
GROUP BY speed_mps
ORDER BY speed_mps;
