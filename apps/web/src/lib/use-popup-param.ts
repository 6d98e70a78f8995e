import { useSearchParams } from 'react-router';

/**
 * A popup opened by a query parameter (`?tag-edit=new`, `?team-member=12`…): its value, and
 * open/close that set or remove the parameter while keeping the rest of the query string.
 */
export function usePopupParam(name: string) {
  const [searchParams, setSearchParams] = useSearchParams();
  const open = (value: string) =>
    setSearchParams((params) => {
      params.set(name, value);
      return params;
    });
  const close = () =>
    setSearchParams((params) => {
      params.delete(name);
      return params;
    });
  return { value: searchParams.get(name), open, close };
}
