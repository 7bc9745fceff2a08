"""The catalogue: recipes as plain data (model), read and validated from their folders
(loader), kept in the metadata cache, gathered from every source (registry), with what their
claims mean (verdict, series), the record of torch versions they were checked on (checked) and
the static checker's rule table (rule_table). It knows nothing of terminals or torch."""
